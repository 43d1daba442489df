// The deploy form's sharing fields: GPU partitions per replica (the MIG profiles of the chosen instance type's
// groups) and, with task governance, the team whose queue admits the replicas and their priority class.
// Every choice is one the cluster has: its groups' partition profiles, its teams' queues, its priority classes.

import ColumnLayout from '@cloudscape-design/components/column-layout';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import Select from '@cloudscape-design/components/select';

import type { DeployForm } from '../lib/inference';
import { useGovernanceChoices } from '../lib/useGovernanceChoices';

interface Group {
  instanceGroup: string;
  instanceType?: string | null;
  mig?: { mode: string; perGpu?: Record<string, number>; perNode?: Record<string, number> } | null;
}

/** The partition profiles the type's groups are partitioned into: profile -> "group g: n per node". */
export function partitionChoices(groups: Group[], instanceType: string): { value: string; label: string; description: string }[] {
  const found = new Map<string, string[]>();
  for (const g of groups) {
    if (g.instanceType !== instanceType || !g.mig || g.mig.mode === 'disabled') continue;
    for (const [profile, perNode] of Object.entries(g.mig.perNode ?? {})) {
      found.set(profile, [...(found.get(profile) ?? []), `group ${g.instanceGroup}: ${perNode} per node`]);
    }
  }
  return [...found.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([profile, where]) => ({ value: profile, label: profile, description: where.join(', ') }));
}

export default function EndpointSharingFields({
  cluster,
  form,
  set,
  groups,
  fields,
}: {
  cluster: string;
  form: DeployForm;
  set: (patch: Partial<DeployForm>) => void;
  groups: Group[];
  fields: Record<string, string>;
}) {
  const { teams, teamOptions, priorityOptions } = useGovernanceChoices(cluster, 'queue');
  const partitions = partitionChoices(groups, form.instanceType);
  const partitionOptions = [{ value: '', label: 'Whole GPUs', description: 'GPUs per replica' }, ...partitions];
  const pickTeam = (queue: string) => {
    const team = teams.find((t) => t.queue === queue);
    set(team ? { queue, namespace: team.namespace } : { queue: '', namespace: '', priority: '' });
  };
  const partitionField = form.kind === 'jumpstart' ? 'jumpstart.acceleratorPartitionType' : `${form.kind}.worker.acceleratorPartition.type`;
  return (
    <>
      {partitions.length ? (
        <ColumnLayout columns={3}>
          <FormField
            label="GPU partition"
            description="A MIG profile of this instance type's partitioned groups"
            errorText={fields[partitionField]}
          >
            <Select
              ariaLabel="GPU partition"
              selectedOption={partitionOptions.find((o) => o.value === form.partition) ?? partitionOptions[0]}
              options={partitionOptions}
              onChange={({ detail }) => set({ partition: detail.selectedOption.value ?? '' })}
            />
          </FormField>
          {form.partition && form.kind !== 'jumpstart' ? (
            <FormField
              label="Partitions per replica"
              errorText={fields[`${form.kind}.worker.acceleratorPartition.count`]}
            >
              <Input
                ariaLabel="Partitions per replica"
                type="number"
                value={String(form.partitionCount)}
                onChange={({ detail }) => set({ partitionCount: Number(detail.value) })}
              />
            </FormField>
          ) : null}
        </ColumnLayout>
      ) : null}
      {teams.length ? (
        <ColumnLayout columns={3}>
          <FormField label="Team" description="Its queue admits the replicas within the team's share" errorText={fields.queue}>
            <Select
              ariaLabel="Team"
              selectedOption={teamOptions.find((o) => o.value === form.queue) ?? teamOptions[0]}
              options={teamOptions}
              onChange={({ detail }) => pickTeam(detail.selectedOption.value ?? '')}
            />
          </FormField>
          <FormField
            label="Priority"
            description="A higher class may preempt lower ones (training) to scale up"
            errorText={fields.priority}
          >
            <Select
              ariaLabel="Priority"
              disabled={!form.queue}
              selectedOption={priorityOptions.find((o) => o.value === form.priority) ?? priorityOptions[0]}
              options={priorityOptions}
              onChange={({ detail }) => set({ priority: detail.selectedOption.value ?? '' })}
            />
          </FormField>
        </ColumnLayout>
      ) : null}
    </>
  );
}
