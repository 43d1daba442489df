// A labelled choice of one value among options (often a list the cluster answers): the form field and its
// select, which is named by the same label and reports the chosen value as a string.

import type { ReactNode } from 'react';
import FormField from '@cloudscape-design/components/form-field';
import Select from '@cloudscape-design/components/select';

export type SelectFieldOption = { value: string; label: string; description?: string };

export default function SelectField({
  label,
  description,
  errorText,
  value,
  options,
  fallback = null,
  loading = false,
  placeholder,
  empty,
  onChange,
}: {
  label: string;
  description?: ReactNode;
  errorText?: ReactNode;
  value: string;
  options: SelectFieldOption[];
  // shown when ``value`` is none of the options
  fallback?: SelectFieldOption | null;
  loading?: boolean;
  placeholder?: string;
  empty?: string;
  onChange: (value: string) => void;
}) {
  return (
    <FormField label={label} description={description} errorText={errorText}>
      <Select
        selectedOption={options.find((o) => o.value === value) ?? fallback}
        options={options}
        placeholder={placeholder}
        empty={empty}
        statusType={loading ? 'loading' : 'finished'}
        onChange={({ detail }) => onChange(detail.selectedOption.value ?? '')}
        ariaLabel={label}
      />
    </FormField>
  );
}
