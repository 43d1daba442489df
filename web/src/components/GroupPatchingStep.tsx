// The add-group wizard's patching and image step: automatic patching (ClusterAutoPatchConfig) with its drain
// policy, and the HyperPod AMI release the nodes run.

import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import RadioGroup from '@cloudscape-design/components/radio-group';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { PATCHING, type AddGroupForm, type PatchingChoice } from '../lib/instanceGroups';

interface Props {
  form: AddGroupForm;
  set: (patch: Partial<AddGroupForm>) => void;
  shown: (field: string) => string | undefined;
}

export default function GroupPatchingStep({ form, set, shown }: Props) {
  return (
    <SpaceBetween size="m">
      <FormField label="Automatic patching" description="HyperPod applies security-patch images by itself and shows when it patches next.">
        <RadioGroup
          value={form.patching}
          onChange={({ detail }) => set({ patching: detail.value as PatchingChoice })}
          items={[
            { value: '', label: 'Off', description: 'Patch with Update software when you choose.' },
            ...Object.entries(PATCHING).map(([value, { label, description }]) => ({ value, label, description })),
          ]}
        />
      </FormField>
      {form.patching === 'DrainFirst' ? (
        <>
          <FormField label="Drain timeout (seconds)" description="How long to wait for a node's pods to leave: 0 to 5400." errorText={shown('drainTimeoutSeconds')}>
            <Input type="number" value={form.drainTimeoutSeconds} onChange={({ detail }) => set({ drainTimeoutSeconds: detail.value })} ariaLabel="Drain timeout in seconds" />
          </FormField>
          <FormField label="When the drain times out">
            <RadioGroup
              value={form.onDrainTimeout}
              onChange={({ detail }) => set({ onDrainTimeout: detail.value as AddGroupForm['onDrainTimeout'] })}
              items={[
                { value: 'Skip', label: 'Skip the node', description: 'Its pods keep running; the node stays on its image.' },
                { value: 'Force', label: 'Force', description: 'Delete the remaining pods, ignoring disruption budgets, and patch.' },
              ]}
            />
          </FormField>
          <FormField label="Nodes patched at once" errorText={shown('patchBatchSize')}>
            <Input type="number" value={form.patchBatchSize} onChange={({ detail }) => set({ patchBatchSize: detail.value })} ariaLabel="Nodes patched at once" />
          </FormField>
        </>
      ) : null}
      <FormField label="Image release version" description="The HyperPod image the nodes run, such as 1.2.3; empty for the latest." errorText={shown('imageReleaseVersion')}>
        <Input value={form.imageReleaseVersion} onChange={({ detail }) => set({ imageReleaseVersion: detail.value })} ariaLabel="Image release version" />
      </FormField>
    </SpaceBetween>
  );
}
