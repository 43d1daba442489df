// The cluster's task-governance policy: the priority classes (higher weight runs first and may preempt
// lower) and fair sharing of idle compute, as SageMaker HyperPod's cluster scheduler config holds them.
// https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance-policies.html

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';

import { api, call, plan } from '../lib/api';
import type { GovernancePolicyView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import ConfirmAction from './ConfirmAction';
import ErrorAlert from './ErrorAlert';

type Row = { name: string; weight: string };
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function rowProblem(row: Row): string | null {
  if (!NAME.test(row.name) || row.name.length > 40) return 'lowercase letters, digits and hyphens, at most 40';
  const weight = Number(row.weight);
  return Number.isInteger(weight) && weight >= 0 && weight <= 100 ? null : 'a weight from 0 to 100';
}

function EditPolicy({ cluster, policy, onClose, onSaved }: { cluster: string; policy: GovernancePolicyView; onClose: () => void; onSaved: () => void }) {
  const { notify } = useSession();
  const [rows, setRows] = useState<Row[]>(
    (policy.priorityClasses ?? []).length
      ? (policy.priorityClasses ?? []).map((p) => ({ name: p.name, weight: String(p.weight) }))
      : [{ name: 'inference', weight: '100' }, { name: 'training', weight: '50' }],
  );
  const [fairShare, setFairShare] = useState(policy.fairShare ?? true);
  const [idle, setIdle] = useState(policy.idleResourceSharing ?? false);
  const valid = rows.length > 0 && rows.every((r) => !rowProblem(r)) && new Set(rows.map((r) => r.name)).size === rows.length;
  const body = { priorityClasses: rows.map((r) => ({ name: r.name, weight: Number(r.weight) })), fairShare, idleResourceSharing: idle };
  const change = (index: number, next: Partial<Row>) => setRows((now) => now.map((r, i) => (i === index ? { ...r, ...next } : r)));
  return (
    <ConfirmAction
      header="Task governance policy"
      action="Save policy"
      ready={valid}
      loadPlan={() => plan('set_governance_policy', { name: cluster }, { body })}
      planDeps={[cluster, JSON.stringify(body)]}
      planLabel="What saving changes"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await call<{ status: string; message: string }>('set_governance_policy', { name: cluster }, { body });
        notify({ type: data.status === 'NOOP' ? 'info' : 'success', header: 'Task governance policy', content: data.message });
        onSaved();
      }}
    >
      <Table
        wrapLines
        variant="embedded"
        items={rows.map((row, index) => ({ ...row, index }))}
        trackBy="index"
        header={<Header variant="h3" description="Higher weight runs first; its tasks may preempt lower ones.">Priority classes</Header>}
        columnDefinitions={[
          {
            id: 'name',
            header: 'Name',
            cell: (r) => <Input value={r.name} ariaLabel={`Priority class ${r.index + 1} name`} invalid={Boolean(rowProblem(r)) && !NAME.test(r.name)} onChange={({ detail }) => change(r.index, { name: detail.value.trim() })} />,
          },
          {
            id: 'weight',
            header: 'Weight',
            cell: (r) => <Input type="number" value={r.weight} ariaLabel={`Priority class ${r.index + 1} weight`} onChange={({ detail }) => change(r.index, { weight: detail.value })} />,
          },
          {
            id: 'remove',
            header: '',
            cell: (r) => (
              <Button variant="icon" iconName="remove" ariaLabel={`Remove priority class ${r.index + 1}`} disabled={rows.length === 1} onClick={() => setRows((now) => now.filter((_, i) => i !== r.index))} />
            ),
          },
        ]}
      />
      <Button disabled={rows.length >= 10} onClick={() => setRows((now) => [...now, { name: '', weight: '10' }])}>
        Add priority class
      </Button>
      {rows.find((r) => rowProblem(r)) ? <Box color="text-status-error">Each class: {rowProblem(rows.find((r) => rowProblem(r)) as Row)}; names differ.</Box> : null}
      <Checkbox checked={fairShare} onChange={({ detail }) => setFairShare(detail.checked)} description="Idle compute is lent to teams by their fair-share weights.">
        Share idle compute fairly
      </Checkbox>
      <Checkbox checked={idle} onChange={({ detail }) => setIdle(detail.checked)} description="Compute no team is allocated can be borrowed too.">
        Lend unallocated compute
      </Checkbox>
    </ConfirmAction>
  );
}

export default function GovernancePolicy({ cluster }: { cluster: string }) {
  const { can } = useSession();
  const { data, error, reload } = useFetch(() => api.governancePolicy(cluster), [cluster]);
  const [editing, setEditing] = useState(false);
  return (
    <SpaceBetween size="s">
      <Header
        variant="h3"
        actions={
          <Button disabled={!data || !can('admin')} disabledReason="Changing the policy needs the admin role." onClick={() => setEditing(true)}>
            Edit policy
          </Button>
        }
      >
        Policy
      </Header>
      <ErrorAlert error={error} />
      {data ? (
        <KeyValuePairs
          columns={4}
          items={[
            {
              label: 'Priority classes',
              value: data.configured && (data.priorityClasses ?? []).length
                ? (data.priorityClasses ?? []).map((p) => `${p.name} (${p.weight})`).join(', ')
                : 'None yet',
            },
            { label: 'Borrowing order', value: data.fairShare ? 'Fair share (team weights)' : 'First come, first served' },
            { label: 'Unallocated compute', value: data.idleResourceSharing ? 'Lent to teams' : 'Not lent' },
            { label: 'Status', value: data.status ? `${data.status}${data.version ? `, version ${data.version}` : ''}` : 'Not configured' },
          ]}
        />
      ) : null}
      {editing && data ? (
        <EditPolicy
          cluster={cluster}
          policy={data}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            void reload();
          }}
        />
      ) : null}
    </SpaceBetween>
  );
}
