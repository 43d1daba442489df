// The GPU partitions (MIG) of an instance group: a select of the layouts the type's GPUs take (nothing shown
// for a type HyperPod does not partition). The add and edit forms use it.

import FormField from '@cloudscape-design/components/form-field';
import Select from '@cloudscape-design/components/select';

import { migChoices } from '../lib/mig';
import type { InstanceTypeOfferingView } from '../lib/types';

export default function MigLayoutField({
  type,
  value,
  onChange,
  errorText,
  editing = false,
}: {
  type: InstanceTypeOfferingView | undefined;
  value: string;
  onChange: (choice: string) => void;
  errorText?: string;
  editing?: boolean;
}) {
  const choices = migChoices(type, editing && value !== '');
  if (!choices.length) return null;
  return (
    <FormField
      label="GPU partitions (MIG)"
      description={
        editing
          ? 'HyperPod partitions only nodes without GPU work: stop or move what runs on the group first.'
          : 'Split every GPU into partitions that pods and endpoints ask for (nvidia.com/mig-<profile>).'
      }
      errorText={errorText}
    >
      <Select
        ariaLabel="GPU partitions (MIG)"
        selectedOption={choices.find((c) => c.value === value) ?? choices[0]}
        options={choices}
        onChange={({ detail }) => onChange(detail.selectedOption.value ?? '')}
      />
    </FormField>
  );
}
