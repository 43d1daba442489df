// Teams: how a cluster is shared under task governance. Pick a cluster; its policy (priority classes, fair
// share, lending of unallocated compute), each team's quota, use and borrowing as a picture, and the form
// that gives a team its share. A cluster without the taskGovernance feature says how to turn it on.

import { useSearchParams } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Link from '@cloudscape-design/components/link';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import ErrorAlert from '../components/ErrorAlert';
import PageLayout from '../components/PageLayout';
import TeamsSection from '../components/TeamsSection';
import { api } from '../lib/api';
import { useFetch } from '../lib/useFetch';

function Governed({ cluster }: { cluster: string }) {
  const { data, error } = useFetch(() => api.features(cluster), [cluster]);
  const feature = data?.items.find((f) => f.name === 'taskGovernance');
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Box>Loading…</Box>;
  if (feature?.status !== 'ACTIVE') {
    return (
      <Box>
        Task governance is {feature?.status?.toLowerCase() ?? 'off'} on {cluster}. Turn it on in the cluster's{' '}
        <Link href={`/clusters/${cluster}?tab=features`}>Features</Link> tab; teams and their quotas follow.
      </Box>
    );
  }
  return <TeamsSection cluster={cluster} />;
}

export default function TeamsPage() {
  const [params, setParams] = useSearchParams();
  const { data, error } = useFetch(() => api.clusters(), []);
  const names = (data?.items ?? []).map((c) => c.name).sort();
  const cluster = params.get('cluster') || names[0] || '';
  return (
    <PageLayout title="Teams" description="Each team's guaranteed share, what it uses and what it borrows.">
      <SpaceBetween size="l">
        <ErrorAlert error={error} />
        <Container>
          <FormField label="Cluster">
            <Select
              selectedOption={cluster ? { value: cluster, label: cluster } : null}
              options={names.map((n) => ({ value: n, label: n }))}
              placeholder="No clusters yet"
              onChange={({ detail }) => setParams({ cluster: detail.selectedOption.value ?? '' })}
            />
          </FormField>
        </Container>
        {cluster ? (
          <Container>
            <Governed cluster={cluster} />
          </Container>
        ) : null}
      </SpaceBetween>
    </PageLayout>
  );
}
