// The cluster's read-only diagnoses: why a creation failed (capacity, quotas, the failed phase) and why a
// training job's collective communication (NCCL) may break. Each answers findings with their evidence and
// the next steps to copy; a node's own diagnosis is on the Nodes tab.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { call } from '../lib/api';
import { jobsApi } from '../lib/jobs';
import { useFetch } from '../lib/useFetch';
import Diagnosis, { type DiagnosisView } from './Diagnosis';
import ErrorAlert from './ErrorAlert';

function useDiagnosis() {
  const [view, setView] = useState<DiagnosisView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  async function run(load: () => Promise<{ data: DiagnosisView }>) {
    setBusy(true);
    setError(null);
    try {
      setView((await load()).data);
    } catch (caught) {
      setError(caught);
      setView(null);
    } finally {
      setBusy(false);
    }
  }
  return { view, error, busy, run };
}

function CreationDiagnosis({ cluster }: { cluster: string }) {
  const { view, error, busy, run } = useDiagnosis();
  return (
    <Container
      header={
        <Header
          variant="h2"
          description="The failed phases, AWS's failure message, where the instance types are offered and the account's quotas."
          actions={
            <Button loading={busy} onClick={() => void run(() => call<DiagnosisView>('diagnose_cluster_creation', { name: cluster }))}>
              Diagnose creation
            </Button>
          }
        >
          Cluster creation
        </Header>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        {view ? <Diagnosis view={view} title="Creation diagnosis" /> : <Box color="text-body-secondary">Not run yet.</Box>}
      </SpaceBetween>
    </Container>
  );
}

function NcclDiagnosis({ cluster }: { cluster: string }) {
  const { view, error, busy, run } = useDiagnosis();
  const jobs = useFetch(() => jobsApi.list(cluster), [cluster]);
  const [job, setJob] = useState('');
  const options = [
    { value: '', label: 'Every training pod' },
    ...(jobs.data?.items ?? []).map((j) => ({ value: j.jobName, label: j.jobName, description: j.status })),
  ];
  return (
    <Container
      header={
        <Header
          variant="h2"
          description="For a job's pods: their spread over zones, EFA requested and present, the NCCL settings and NCCL errors in their logs."
          actions={
            <Button
              loading={busy}
              onClick={() => void run(() => call<DiagnosisView>('diagnose_nccl', { name: cluster }, { query: { job: job || undefined } }))}
            >
              Diagnose communication
            </Button>
          }
        >
          Training communication (NCCL)
        </Header>
      }
    >
      <SpaceBetween size="m">
        <FormField label="Job">
          <Select
            selectedOption={options.find((o) => o.value === job) ?? options[0]}
            onChange={({ detail }) => setJob(detail.selectedOption.value ?? '')}
            options={options}
            ariaLabel="Job"
            statusType={jobs.loading ? 'loading' : 'finished'}
          />
        </FormField>
        <ErrorAlert error={error ?? jobs.error} />
        {view ? <Diagnosis view={view} title="Communication diagnosis" /> : <Box color="text-body-secondary">Not run yet.</Box>}
      </SpaceBetween>
    </Container>
  );
}

export default function DiagnosisTab({ cluster }: { cluster: string }) {
  return (
    <SpaceBetween size="l">
      <CreationDiagnosis cluster={cluster} />
      <NcclDiagnosis cluster={cluster} />
    </SpaceBetween>
  );
}
