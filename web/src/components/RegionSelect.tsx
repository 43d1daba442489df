// The Region a cluster is created in (GET /api/catalog/regions): Launchpod's own first, named as the default;
// the value '' stands for it, so a request leaves region out unless another is chosen.

import { useEffect, useState } from 'react';
import FormField from '@cloudscape-design/components/form-field';
import Select, { type SelectProps } from '@cloudscape-design/components/select';

import { api } from '../lib/api';

export default function RegionSelect({
  value,
  onChange,
  onHome,
  errorText,
}: {
  value: string;
  onChange: (region: string) => void;
  onHome?: (region: string) => void; // told Launchpod's Region once it is known (the review names it)
  errorText?: string;
}) {
  const [regions, setRegions] = useState<{ default: string; items: string[] } | null>(null);
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    api
      .regions()
      .then(({ data }) => {
        setRegions(data);
        onHome?.(data.default);
      })
      .catch((caught: unknown) => setFailed(caught instanceof Error ? caught.message : String(caught)));
    // onHome is the caller's setter: asked once
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const home = regions?.default ?? '';
  const option = (region: string): SelectProps.Option => ({
    value: region === home ? '' : region,
    label: region === home ? `${region} (Launchpod's Region)` : region,
  });
  return (
    <FormField
      label="Region"
      description="Where every resource of the cluster is made; it cannot move later. The zones and instance types below are this Region's."
      errorText={errorText ?? failed}
    >
      <Select
        selectedOption={regions ? option(value || home) : null}
        onChange={({ detail }) => onChange(detail.selectedOption.value ?? '')}
        options={[home, ...(regions?.items ?? []).filter((region) => region !== home)].filter(Boolean).map(option)}
        statusType={regions ? 'finished' : 'loading'}
        loadingText="Loading Regions"
        filteringType="auto"
      />
    </FormField>
  );
}
