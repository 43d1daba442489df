// Edit an instance group's minimum count, automatic patching, image and GPU partitions (MIG): only the fields
// changed are sent (the explicit diff), and the dialog shows the API's dry-run plan of exactly that change
// before it is made (a MIG change while pods use the group's GPUs is refused there, naming them).

import { useState } from 'react';
import Alert from '@cloudscape-design/components/alert';
import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';

import { api, plan } from '../lib/api';
import type { DepthChoices } from '../lib/groupDepth';
import { depthOf, editGroupBody, editGroupErrors } from '../lib/instanceGroups';
import { migChoiceOf, migLayout } from '../lib/mig';
import type { InstanceGroupView } from '../lib/types';
import { useFetch } from '../lib/useFetch';
import { useAnswer } from '../useAnswer';
import ConfirmAction from './ConfirmAction';
import GroupPatchingStep from './GroupPatchingStep';
import MigLayoutField from './MigLayoutField';

export default function EditGroupModal({
  cluster,
  region,
  group,
  onClose,
}: {
  cluster: string;
  region?: string;
  group: InstanceGroupView;
  onClose: () => void;
}) {
  const follow = useAnswer();
  const [before] = useState(() => depthOf(group));
  const [form, setForm] = useState<DepthChoices>(before);
  const migBefore = migChoiceOf(group.mig);
  const [mig, setMig] = useState(migBefore);
  // the layouts the group's GPUs take (a flexible group has none: MIG needs one instance type)
  const types = useFetch(() => api.instanceTypes(undefined, region), [region]);
  const type = group.instanceTypes?.length ? undefined : types.data?.items.find((t) => t.instanceType === group.instanceType);
  const set = (patch: Partial<DepthChoices>) => setForm((current) => ({ ...current, ...patch }));
  const errors = editGroupErrors(before, form, group.targetCount);
  const body = { ...editGroupBody(before, form), ...(mig !== migBefore ? { mig: migLayout(mig || 'disabled') } : {}) };
  const changed = Object.keys(body).length > 0;
  const valid = Object.keys(errors).length === 0;
  return (
    <ConfirmAction
      header={`Edit ${group.instanceGroup}`}
      action="Save changes"
      ready={changed && valid}
      loadPlan={() => plan('update_instance_group', { name: cluster, group: group.instanceGroup }, { body })}
      planDeps={[cluster, group.instanceGroup, JSON.stringify(body)]}
      planLabel="What the change does"
      onClose={onClose}
      onConfirm={async () => {
        const { data } = await api.updateInstanceGroup(cluster, group.instanceGroup, body);
        follow(data, onClose);
      }}
    >
      <FormField
        label="Minimum count"
        description={`The group is in service once this many run (0 to ${group.targetCount}, its instance count); HyperPod keeps adding the rest.`}
        errorText={errors.minInstanceCount}
      >
        <Input type="number" inputMode="numeric" value={form.minInstanceCount} placeholder="None" onChange={({ detail }) => set({ minInstanceCount: detail.value })} ariaLabel="Minimum count" />
      </FormField>
      <GroupPatchingStep form={form} set={set} shown={(field) => errors[field]} />
      <MigLayoutField type={type} value={mig} onChange={setMig} editing />
      {changed || !valid ? null : <Alert type="info">Change a field to see what the update does before it is made.</Alert>}
    </ConfirmAction>
  );
}
