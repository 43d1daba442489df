// The cluster's HyperPod instance groups: list, add (wizard: type, capacity, placement), edit (minimum, patching,
// image), scale, delete.

import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import Modal from '@cloudscape-design/components/modal';
import Multiselect from '@cloudscape-design/components/multiselect';
import RadioGroup from '@cloudscape-design/components/radio-group';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Wizard from '@cloudscape-design/components/wizard';

import { api } from '../lib/api';
import {
  addGroupBody,
  addGroupErrors,
  CAPACITY_TYPES,
  capacityLabel,
  EMPTY_ADD_GROUP,
  PATCHING,
  patchLabel,
  typesLabel,
  type AddGroupForm,
} from '../lib/instanceGroups';
import { byInstanceType, efaOnlyNote, instanceTypeOption } from '../lib/instanceTypes';
import type { InstanceGroupView } from '../lib/types';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { migChoices } from '../lib/mig';
import { useSession } from '../session';
import { useAnswer } from '../useAnswer';
import AutoscalingSection from './AutoscalingSection';
import { ConfirmOperation } from './ConfirmAction';
import SoftwareUpdate from './SoftwareUpdate';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import EditGroupModal from './EditGroupModal';
import MigLayoutField from './MigLayoutField';
import SelectField from './SelectField';
import GroupPatchingStep from './GroupPatchingStep';
import Status from './Status';

function AddGroupWizard({ cluster, region, existing, onClose }: { cluster: string; region?: string; existing: string[]; onClose: () => void }) {
  const navigate = useNavigate();
  const { notify } = useSession();
  const [form, setForm] = useState<AddGroupForm>(EMPTY_ADD_GROUP);
  const [step, setStep] = useState(0);
  const [tried, setTried] = useState(false);
  const { busy, error, setError, run } = useAction();
  // the types and zones of the cluster's own Region
  const types = useFetch(() => api.instanceTypes(undefined, region), [region]);
  const zones = useFetch(() => api.availabilityZones(undefined, region), [region]);
  const errors = addGroupErrors(form, existing);
  const set = (patch: Partial<AddGroupForm>) => setForm((f) => ({ ...f, ...patch }));
  const shown = (field: string) => (tried ? errors[field] : undefined);
  const typeOptions = [...(types.data?.items ?? [])].sort(byInstanceType).map(instanceTypeOption);
  const migOptions = migChoices(types.data?.items.find((t) => t.instanceType === form.instanceType));
  const zoneOptions = [{ value: '', label: "The cluster's zone" }, ...(zones.data?.items ?? []).map((z) => ({ value: z.name, label: `${z.name} (${z.zoneId})` }))];

  async function submit() {
    setTried(true);
    if (Object.keys(errors).length) return;
    await run(async () => {
      const { data } = await api.addInstanceGroup(cluster, addGroupBody(form));
      notify({ type: 'success', header: `Adding instance group ${form.group}`, content: (data.notes ?? []).join(' ') || undefined });
      navigate(`/operations/${data.operation.id}`);
    });
  }

  return (
    <Modal visible size="large" onDismiss={onClose} header="Add instance group">
      <Wizard
        activeStepIndex={step}
        isLoadingNextStep={busy}
        onNavigate={({ detail }) => {
          const fields = [
            ['group', 'instanceType', 'instanceCount', 'fallbackTypes', 'minInstanceCount', 'mig'],
            ['trainingPlanArn', 'fallbackTypes'],
            [],
            ['drainTimeoutSeconds', 'patchBatchSize', 'imageReleaseVersion'],
            [],
          ][step];
          if (detail.requestedStepIndex > step && fields.some((f) => errors[f])) {
            setTried(true);
            return;
          }
          setStep(detail.requestedStepIndex);
        }}
        onCancel={onClose}
        onSubmit={() => void submit()}
        i18nStrings={{
          stepNumberLabel: (n) => `Step ${n}`,
          collapsedStepsLabel: (n, total) => `Step ${n} of ${total}`,
          navigationAriaLabel: 'Steps',
          cancelButton: 'Cancel',
          previousButton: 'Previous',
          nextButton: 'Next',
          submitButton: 'Add group',
        }}
        steps={[
          {
            title: 'Instance type and count',
            content: (
              <SpaceBetween size="m">
                <FormField label="Group name" errorText={shown('group')}>
                  <Input value={form.group} onChange={({ detail }) => set({ group: detail.value })} ariaLabel="Group name" />
                </FormField>
                <FormField label="Instance type" errorText={shown('instanceType')}>
                  <Select
                    selectedOption={typeOptions.find((o) => o.value === form.instanceType) ?? null}
                    options={typeOptions}
                    filteringType="auto"
                    placeholder="Choose an instance type"
                    statusType={types.loading ? 'loading' : 'finished'}
                    onChange={({ detail }) => set({ instanceType: detail.selectedOption.value ?? '', mig: '' })}
                    ariaLabel="Instance type"
                  />
                </FormField>
                <MigLayoutField type={types.data?.items.find((t) => t.instanceType === form.instanceType)} value={form.mig} onChange={(mig) => set({ mig })} errorText={shown('mig')} />
                <FormField
                  label="Fallback instance types"
                  description="Optional: a flexible group. HyperPod tries the instance type first, then these in the order chosen, when a type has no capacity."
                  errorText={shown('fallbackTypes')}
                >
                  <Multiselect
                    selectedOptions={form.fallbackTypes.map((t) => typeOptions.find((o) => o.value === t) ?? { value: t, label: t })}
                    options={typeOptions.filter((o) => o.value !== form.instanceType)}
                    filteringType="auto"
                    placeholder="None: one instance type"
                    deselectAriaLabel={(option) => `Remove ${option.label ?? option.value}`}
                    onChange={({ detail }) => set({ fallbackTypes: detail.selectedOptions.map((o) => o.value ?? '').filter(Boolean) })}
                    ariaLabel="Fallback instance types"
                  />
                </FormField>
                <FormField label="Instance count" description="0 is allowed: a group to scale up later." errorText={shown('instanceCount')}>
                  <Input type="number" value={form.instanceCount} onChange={({ detail }) => set({ instanceCount: detail.value })} ariaLabel="Instance count" />
                </FormField>
                <FormField
                  label="Minimum count"
                  description="Optional: the group is in service only once this many run; HyperPod keeps adding the rest."
                  errorText={shown('minInstanceCount')}
                >
                  <Input type="number" value={form.minInstanceCount} onChange={({ detail }) => set({ minInstanceCount: detail.value })} ariaLabel="Minimum count" />
                </FormField>
              </SpaceBetween>
            ),
          },
          {
            title: 'Capacity',
            content: (
              <SpaceBetween size="m">
                <FormField label="Capacity type" description="Fixed for the life of the group.">
                  <RadioGroup
                    value={form.capacityType}
                    onChange={({ detail }) => set({ capacityType: detail.value as AddGroupForm['capacityType'] })}
                    items={Object.entries(CAPACITY_TYPES).map(([value, { label, description }]) => ({ value, label, description }))}
                  />
                </FormField>
                {form.capacityType === 'trainingPlan' ? (
                  <FormField label="Training plan ARN" errorText={shown('trainingPlanArn')}>
                    <Input value={form.trainingPlanArn} onChange={({ detail }) => set({ trainingPlanArn: detail.value })} ariaLabel="Training plan ARN" />
                  </FormField>
                ) : null}
                <Checkbox
                  checked={form.efaOnly}
                  onChange={({ detail }) => set({ efaOnly: detail.checked })}
                  description={efaOnlyNote(types.data?.items.find((t) => t.instanceType === form.instanceType))}
                >
                  EFA-only network interfaces
                </Checkbox>
              </SpaceBetween>
            ),
          },
          {
            title: 'Placement',
            content: (
              <SpaceBetween size="m">
                <SelectField
                  label="Availability zone"
                  description="Another zone than the cluster's needs a dedicated subnet."
                  value={form.availabilityZone}
                  options={zoneOptions}
                  fallback={zoneOptions[0]}
                  onChange={(availabilityZone) => set({ availabilityZone })}
                />
                <Checkbox
                  checked={form.dedicatedSubnet}
                  onChange={({ detail }) => set({ dedicatedSubnet: detail.checked })}
                  description="A new /20 for this group alone, deleted with it."
                >
                  Dedicated subnet
                </Checkbox>
              </SpaceBetween>
            ),
          },
          {
            title: 'Patching and image',
            content: <GroupPatchingStep form={form} set={set} shown={shown} />,
          },
          {
            title: 'Review',
            content: (
              <SpaceBetween size="m">
                <ErrorAlert error={error} onDismiss={() => setError(null)} />
                <KeyValuePairs
                  columns={2}
                  items={[
                    { label: 'Group', value: form.group },
                    { label: form.fallbackTypes.length ? 'Instance types, in order' : 'Instance type', value: [form.instanceType, ...form.fallbackTypes].join(', then ') },
                    { label: 'Count', value: form.minInstanceCount ? `${form.instanceCount} (in service from ${form.minInstanceCount})` : form.instanceCount },
                    { label: 'Capacity', value: capacityLabel(form.capacityType) },
                    { label: 'EFA-only', value: form.efaOnly ? 'Yes' : 'No' },
                    { label: 'Zone', value: form.availabilityZone || "The cluster's" },
                    { label: 'Dedicated subnet', value: form.dedicatedSubnet ? 'Yes' : 'No' },
                    { label: 'Automatic patching', value: form.patching ? PATCHING[form.patching].label : 'Off' },
                    { label: 'Image release', value: form.imageReleaseVersion || 'The latest' },
                    ...(migOptions.length ? [{ label: 'GPU partitions (MIG)', value: migOptions.find((c) => c.value === form.mig)?.label ?? 'Whole GPUs' }] : []),
                  ]}
                />
              </SpaceBetween>
            ),
          },
        ]}
      />
    </Modal>
  );
}

function ScaleModal({ cluster, group, onClose }: { cluster: string; group: InstanceGroupView; onClose: () => void }) {
  const follow = useAnswer();
  const [count, setCount] = useState(String(group.targetCount));
  const { busy, error, setError, run } = useAction();
  const valid = /^\d+$/.test(count) && Number(count) <= 6758;

  const scale = () =>
    run(async () => {
      const { data } = await api.updateInstanceGroup(cluster, group.instanceGroup, { instanceCount: Number(count) });
      follow(data, onClose);
    });

  return (
    <Modal
      visible
      onDismiss={onClose}
      header={`Scale ${group.instanceGroup}`}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={onClose}>Cancel</Button>
            <Button variant="primary" loading={busy} disabled={!valid} onClick={() => void scale()}>Scale</Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} onDismiss={() => setError(null)} />
        <FormField label="Instance count" description={`Now ${group.currentCount} running of ${group.targetCount}.`} errorText={valid ? undefined : 'A whole number from 0 to 6758.'}>
          <Input type="number" value={count} onChange={({ detail }) => setCount(detail.value)} ariaLabel="New instance count" />
        </FormField>
      </SpaceBetween>
    </Modal>
  );
}

function DeleteModal({ cluster, group, onClose }: { cluster: string; group: InstanceGroupView; onClose: () => void }) {
  return (
    <ConfirmOperation
      header={`Delete ${group.instanceGroup}`}
      action="Delete"
      typeToConfirm={group.instanceGroup}
      confirmLabel="Group name to confirm"
      operation="delete_instance_group"
      params={{ name: cluster, group: group.instanceGroup }}
      options={{ query: { confirm: group.instanceGroup } }}
      planLabel="What the delete does"
      onClose={onClose}
    >
      <Alert type="warning">
        Its {group.currentCount} node(s) are terminated{group.dedicatedSubnet ? ' and its dedicated subnet is deleted' : ''}.
      </Alert>
    </ConfirmOperation>
  );
}

export default function InstanceGroupsTab({ cluster, region, ready }: { cluster: string; region?: string; ready: boolean }) {
  const { can } = useSession();
  const { data, error, loading, reload } = useFetch(() => api.instanceGroups(cluster), [cluster], 10000);
  const [selected, setSelected] = useState<InstanceGroupView[]>([]);
  const [dialog, setDialog] = useState<'add' | 'edit' | 'scale' | 'delete' | 'software' | null>(null);
  const items = data?.items ?? [];
  const current = items.find((g) => g.instanceGroup === selected[0]?.instanceGroup);
  const admin = can('admin');
  const inService = data?.clusterStatus === 'InService';
  const why = !admin ? 'Changing instance groups needs the admin role.' : `The HyperPod cluster is ${data?.clusterStatus ?? 'not there'}; wait until it is InService.`;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={ready ? error : null} />
      <ListTable what="instance groups" fetched={{ data, loading, reload }}
        trackBy="instanceGroup"
        selectionType="single"
        selectedItems={current ? [current] : []}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
        ariaLabels={{ itemSelectionLabel: (_, item) => item.instanceGroup, selectionGroupLabel: 'Instance groups', allItemsSelectionLabel: () => 'all' }}
        empty={ready ? 'No instance groups.' : 'The cluster has no HyperPod cluster yet: create it from Actions, Create HyperPod cluster.'}
        description="HyperPod instance groups. Capacity type, NIC mode, instance type and subnet are fixed for the life of a group."
        actions={
          <>
            <Button disabled={!current || !admin || !inService} disabledReason={current ? why : 'Select a group.'} onClick={() => setDialog('delete')}>Delete</Button>
            <Button disabled={!current || !admin || !inService} disabledReason={current ? why : 'Select a group.'} onClick={() => setDialog('edit')}>Edit</Button>
            <Button disabled={!current || !admin || !inService} disabledReason={current ? why : 'Select a group.'} onClick={() => setDialog('scale')}>Scale</Button>
            <Button disabled={!admin || !inService} disabledReason={why} onClick={() => setDialog('software')}>Update software</Button>
            <Button variant="primary" disabled={!admin || !inService} disabledReason={why} onClick={() => setDialog('add')}>Add group</Button>
          </>
        }
        // Seven columns, what belongs together in one cell (the group and its checks, type and NIC, image and
        // patching, zone and subnet): thirteen ran past the card at 1280 px and cut the zone and subnet off.
        columnDefinitions={[
          {
            id: 'group',
            header: 'Group',
            cell: (g) => (
              <>
                {g.instanceGroup}
                {g.deepHealthChecks?.length ? (
                  <Box variant="small" display="block">Deep health checks: {g.deepHealthChecks.join(', ')}</Box>
                ) : null}
                {g.karpenterManaged ? <Box variant="small" display="block">Managed by Karpenter</Box> : null}
              </>
            ),
          },
          {
            id: 'type',
            header: 'Instance type',
            cell: (g) => (
              <>
                {typesLabel(g)}
                <Box variant="small" display="block">
                  {({ 'efa-only': 'EFA-only', efa: 'EFA', ena: 'ENA (no EFA)' })[g.nicMode]}
                </Box>
              </>
            ),
          },
          { id: 'status', header: 'Status', cell: (g) => <Status value={g.status} /> },
          { id: 'count', header: 'Running / target', cell: (g) => `${g.currentCount} / ${g.targetCount}${g.minInstanceCount ? ` (min ${g.minInstanceCount})` : ''}${g.scaling ? ' (scaling)' : ''}` },
          { id: 'capacity', header: 'Capacity', cell: (g) => (g.trainingPlanArn ? `${capacityLabel(g.capacityType)} (${g.trainingPlanStatus ?? '-'})` : capacityLabel(g.capacityType)) },
          {
            id: 'software',
            header: 'Image and patching',
            minWidth: 150,
            cell: (g) => {
              const { strategy, next } = patchLabel(g);
              return (
                <>
                  {g.imageVersion ?? g.imageReleaseVersion ?? 'Latest'}
                  <Box variant="small" display="block">
                    {/* the date never wraps at its hyphens */}
                    Patching: {next ? <>{strategy}; next <span style={{ whiteSpace: 'nowrap' }}>{next}</span></> : strategy}
                  </Box>
                </>
              );
            },
          },
          {
            id: 'placement',
            header: 'Zone and subnet',
            cell: (g) => (
              <>
                {/* a zone or a subnet id never wraps mid-name */}
                <span style={{ whiteSpace: 'nowrap' }}>{(g.availabilityZones ?? []).join(', ') || '-'}</span>
                <Box variant="small" display="block">
                  {(g.subnetIds ?? []).map((id) => <span key={id} style={{ whiteSpace: 'nowrap' }}>{id} </span>)}
                  {g.dedicatedSubnet ? '(dedicated)' : ''}
                </Box>
              </>
            ),
          },
        ]}
      />
      {ready ? <AutoscalingSection cluster={cluster} list={data ?? null} /> : null}
      {dialog === 'add' ? <AddGroupWizard cluster={cluster} region={region} existing={items.map((g) => g.instanceGroup)} onClose={() => setDialog(null)} /> : null}
      {dialog === 'edit' && current ? <EditGroupModal cluster={cluster} region={region} group={current} onClose={() => setDialog(null)} /> : null}
      {dialog === 'scale' && current ? <ScaleModal cluster={cluster} group={current} onClose={() => setDialog(null)} /> : null}
      {dialog === 'software' ? <SoftwareUpdate cluster={cluster} groups={items.map((g) => g.instanceGroup)} onClose={() => setDialog(null)} /> : null}
      {dialog === 'delete' && current ? <DeleteModal cluster={cluster} group={current} onClose={() => setDialog(null)} /> : null}
    </SpaceBetween>
  );
}
