// A group's patching and image fields: automatic patching (ClusterAutoPatchConfig) with its drain policy, and
// the HyperPod AMI release the nodes run. Shown by the add-group wizard and by each group of the create wizard
// (`label` then names the group, so each field's label is its own).

import FormField from '@cloudscape-design/components/form-field';
import Input from '@cloudscape-design/components/input';
import RadioGroup from '@cloudscape-design/components/radio-group';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { PATCHING, type DepthChoices, type PatchingChoice } from '../lib/groupDepth';

interface Props {
  form: DepthChoices;
  set: (patch: Partial<DepthChoices>) => void;
  shown: (field: string) => string | undefined;
  label?: string; // prefixes the fields' accessible names, e.g. "workers: "
}

export default function GroupPatchingStep({ form, set, shown, label = '' }: Props) {
  return (
    <SpaceBetween size="m">
      <FormField label="Automatic patching" description="HyperPod applies security-patch images by itself and shows when it patches next." errorText={shown('patching')}>
        <RadioGroup
          value={form.patching}
          onChange={({ detail }) => set({ patching: detail.value as PatchingChoice })}
          ariaLabel={`${label}Automatic patching`}
          items={[
            { value: '', label: 'Off', description: 'Patch with Update software when you choose.' },
            ...Object.entries(PATCHING).map(([value, { label, description }]) => ({ value, label, description })),
          ]}
        />
      </FormField>
      {form.patching === 'DrainFirst' ? (
        <>
          <FormField label="Drain timeout (seconds)" description="How long to wait for a node's pods to leave: 0 to 5400." errorText={shown('drainTimeoutSeconds')}>
            <Input type="number" value={form.drainTimeoutSeconds} onChange={({ detail }) => set({ drainTimeoutSeconds: detail.value })} ariaLabel={`${label}Drain timeout in seconds`} />
          </FormField>
          <FormField label="When the drain times out">
            <RadioGroup
              value={form.onDrainTimeout}
              onChange={({ detail }) => set({ onDrainTimeout: detail.value as DepthChoices['onDrainTimeout'] })}
              items={[
                { value: 'Skip', label: 'Skip the node', description: 'Its pods keep running; the node stays on its image.' },
                { value: 'Force', label: 'Force', description: 'Delete the remaining pods, ignoring disruption budgets, and patch.' },
              ]}
            />
          </FormField>
          <FormField label="Nodes patched at once" errorText={shown('patchBatchSize')}>
            <Input type="number" value={form.patchBatchSize} onChange={({ detail }) => set({ patchBatchSize: detail.value })} ariaLabel={`${label}Nodes patched at once`} />
          </FormField>
        </>
      ) : null}
      <FormField label="Image release version" description="The HyperPod image the nodes run, such as 1.2.3; empty for the latest." errorText={shown('imageReleaseVersion')}>
        <Input value={form.imageReleaseVersion} onChange={({ detail }) => set({ imageReleaseVersion: detail.value })} ariaLabel={`${label}Image release version`} />
      </FormField>
    </SpaceBetween>
  );
}
