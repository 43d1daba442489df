// Operations history, filterable by cluster and status.

import { useSearchParams } from 'react-router-dom';
import FormField from '@cloudscape-design/components/form-field';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import ErrorAlert from '../components/ErrorAlert';
import OperationsTable from '../components/OperationsTable';
import { api } from '../lib/api';
import type { OperationStatus } from '../lib/types';
import { useFetch } from '../lib/useFetch';

const STATUSES: OperationStatus[] = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

export default function OperationsPage() {
  const [params, setParams] = useSearchParams();
  const cluster = params.get('cluster') ?? '';
  const status = (params.get('status') ?? '') as OperationStatus | '';
  const clusters = useFetch(() => api.clusters(), []);
  const { data, error, loading, reload } = useFetch(
    () => api.operations({ cluster: cluster || undefined, status: status || undefined }),
    [cluster, status],
    5000,
  );

  const update = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };

  const names = (clusters.data?.items ?? []).map((item) => item.name);
  if (cluster && !names.includes(cluster)) names.push(cluster);

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={error} />
      <OperationsTable
        operations={data?.items ?? []}
        loading={loading && !data}
        onRefresh={() => void reload()}
        title="Operations history"
        filter={
          <SpaceBetween direction="horizontal" size="m">
            <FormField label="Cluster">
              <Select
                selectedOption={{ value: cluster, label: cluster || 'All clusters' }}
                onChange={({ detail }) => update('cluster', detail.selectedOption.value ?? '')}
                options={[{ value: '', label: 'All clusters' }, ...names.map((name) => ({ value: name, label: name }))]}
              />
            </FormField>
            <FormField label="Status">
              <Select
                selectedOption={{ value: status, label: status ? status.charAt(0) + status.slice(1).toLowerCase() : 'Any status' }}
                onChange={({ detail }) => update('status', detail.selectedOption.value ?? '')}
                options={[
                  { value: '', label: 'Any status' },
                  ...STATUSES.map((value) => ({ value, label: value.charAt(0) + value.slice(1).toLowerCase() })),
                ]}
              />
            </FormField>
          </SpaceBetween>
        }
      />
    </SpaceBetween>
  );
}
