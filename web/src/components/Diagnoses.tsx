// The cluster's read-only diagnoses: why a creation failed (capacity, quotas, the failed phase), on the
// Overview, and why a training job's collective communication (NCCL) may break, in the job's detail. Each
// answers findings with their evidence and the next steps to copy; a node's own is on the Nodes tab.

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import Header from '@cloudscape-design/components/header';
import SpaceBetween from '@cloudscape-design/components/space-between';

import { call } from '../lib/api';
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

function DiagnosisPanel({
  header,
  description,
  action,
  title,
  load,
}: {
  header: string;
  description: string;
  action: string;
  title: string;
  load: () => Promise<{ data: DiagnosisView }>;
}) {
  const { view, error, busy, run } = useDiagnosis();
  return (
    <Container
      header={
        <Header
          variant="h2"
          description={description}
          actions={
            <Button loading={busy} onClick={() => void run(load)}>
              {action}
            </Button>
          }
        >
          {header}
        </Header>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        {view ? <Diagnosis view={view} title={title} /> : <Box color="text-body-secondary">Not run yet.</Box>}
      </SpaceBetween>
    </Container>
  );
}

export function CreationDiagnosis({ cluster }: { cluster: string }) {
  return (
    <DiagnosisPanel
      header="Cluster creation"
      description="The failed phases, AWS's failure message, where the instance types are offered and the account's quotas."
      action="Diagnose creation"
      title="Creation diagnosis"
      load={() => call<DiagnosisView>('diagnose_cluster_creation', { name: cluster })}
    />
  );
}

export function NcclDiagnosis({ cluster, job, namespace }: { cluster: string; job: string; namespace?: string }) {
  return (
    <DiagnosisPanel
      header="Training communication (NCCL)"
      description="Its pods' spread over zones, EFA requested and present, the NCCL settings and NCCL errors in their logs."
      action="Diagnose communication"
      title="Communication diagnosis"
      // the namespace too: two teams may each run a job of this name, and only this one's pods are its pods
      load={() => call<DiagnosisView>('diagnose_nccl', { name: cluster }, { query: namespace ? { jobName: job, namespace } : { jobName: job } })}
    />
  );
}
