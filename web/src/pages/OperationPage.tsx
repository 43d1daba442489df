// The progress panel: a live phase stepper over WebSocket (polling as the fallback), with retry from the
// failed phase and cancel.

import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import ExpandableSection from '@cloudscape-design/components/expandable-section';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import Modal from '@cloudscape-design/components/modal';
import ProgressBar from '@cloudscape-design/components/progress-bar';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Spinner from '@cloudscape-design/components/spinner';
import StatusIndicator from '@cloudscape-design/components/status-indicator';
import Textarea from '@cloudscape-design/components/textarea';

import Breadcrumbs from '../components/Breadcrumbs';
import ErrorAlert from '../components/ErrorAlert';
import PageLayout from '../components/PageLayout';
import HyperPodAgain from '../components/HyperPodAgain';
import Link from '../components/Link';
import PhaseSteps from '../components/PhaseSteps';
import { DryRunPlan } from '../components/PlanSteps';
import Status from '../components/Status';
import Unbroken from '../components/Unbroken';
import { api, plan } from '../lib/api';
import { failedHyperPodAsk } from '../lib/hyperpodAgain';
import { failureAdvice } from '../lib/failureAdvice';
import { formatDuration, formatTime, kindTitle } from '../lib/format';
import { useOperation } from '../lib/stream';
import { TERMINAL } from '../lib/types';
import { useActions } from '../lib/useAction';
import { useSession } from '../session';


export default function OperationPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { can, notify } = useSession();
  const { operation, error, transport, setOperation } = useOperation(id);
  const { busy, error: actionError, setError: setActionError, run } = useActions<'retry' | 'cancel'>();
  const [cancelOpen, setCancelOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [againOpen, setAgainOpen] = useState(false);

  const retry = () =>
    run('retry', async () => {
      const { data } = await api.retry(id);
      setOperation(data.operation);
      notify({ type: 'info', header: 'Retrying', content: `Operation ${id} resumes from the phase that failed.` });
    });

  const cancel = () =>
    run('cancel', async () => {
      const { data } = await api.cancel(id, reason || undefined);
      setOperation(data);
      setCancelOpen(false);
    });

  const breadcrumbs = (
    <Breadcrumbs
      items={[
        { text: 'Operations', href: '/operations' },
        { text: id, href: `/operations/${id}` },
      ]}
    />
  );

  if (!operation) {
    return (
      <SpaceBetween size="m">
        {breadcrumbs}
        {error ? <ErrorAlert error={error} /> : <Spinner size="large" />}
      </SpaceBetween>
    );
  }

  const finished = TERMINAL.has(operation.status);
  const failedPhase = operation.phases.find((phase) => phase.status === 'FAILED' || phase.status === 'CANCELLED');
  const done = operation.phases.filter((phase) => phase.status === 'SUCCEEDED' || phase.status === 'SKIPPED').length;
  const running = operation.phases.find((phase) => phase.status === 'RUNNING');
  const retryable = operation.status === 'FAILED' || operation.status === 'CANCELLED';
  const hyperpodAsk = failedHyperPodAsk(operation);
  const ended = finished ? operation.updatedAt : null;

  return (
    <PageLayout
      breadcrumbs={breadcrumbs}
      title={kindTitle(operation.kind)}
      description={
        <>
          On cluster <Link href={`/clusters/${encodeURIComponent(operation.target)}`}>{operation.target}</Link> · {operation.id}
        </>
      }
      info={
        <Box margin={{ left: 'xs' }} display="inline-block">
          {finished ? null : transport === 'websocket' ? (
            <StatusIndicator type="success" iconAriaLabel="Live">Live</StatusIndicator>
          ) : transport === 'polling' ? (
            <StatusIndicator type="pending">Refreshing every 2 s</StatusIndicator>
          ) : (
            <StatusIndicator type="loading">Connecting</StatusIndicator>
          )}
        </Box>
      }
      actions={
        <SpaceBetween direction="horizontal" size="xs">
          {!finished ? (
            <Button disabled={!can('operator')} disabledReason="Cancelling needs the operator role." onClick={() => setCancelOpen(true)}>
              Cancel operation
            </Button>
          ) : null}
          {hyperpodAsk ? (
            <Button
              disabled={!can('admin')}
              disabledReason="Creating HyperPod needs the admin role."
              onClick={() => setAgainOpen(true)}
            >
              Try another zone
            </Button>
          ) : null}
          {retryable ? (
            <Button
              variant="primary"
              loading={busy === 'retry'}
              disabled={!can('operator')}
              disabledReason="Retrying needs the operator role."
              onClick={() => void retry()}
            >
              Retry from failed phase
            </Button>
          ) : null}
        </SpaceBetween>
      }
    >
      <SpaceBetween size="l">
        <ErrorAlert error={actionError} onDismiss={() => setActionError(null)} />
        {operation.status === 'FAILED' ? (
          <div data-testid="operation-failure">
          <Alert type="error" header={failedPhase ? `${failedPhase.title} failed` : 'The operation failed'}>
            <Unbroken text={failedPhase?.message ?? operation.message ?? operation.error ?? 'No reason was recorded.'} />
            {failedPhase?.error ? <Box variant="code" display="block">{failedPhase.error}</Box> : null}
            <Box variant="p">{failureAdvice(failedPhase?.error, Boolean(hyperpodAsk))}</Box>
          </Alert>
          </div>
        ) : null}
        {operation.status === 'SUCCEEDED' ? (
          <Alert type="success" header="Operation succeeded">
            {operation.message ?? `Every phase finished on ${operation.target}.`}
          </Alert>
        ) : null}
        <Container header={<Header variant="h2">Summary</Header>}>
          <KeyValuePairs
            columns={4}
            items={[
              { label: 'Status', value: <span data-testid="operation-status"><Status value={operation.status} /></span> },
              { label: 'Cluster', value: <Link href={`/clusters/${encodeURIComponent(operation.target)}`}>{operation.target}</Link> },
              { label: 'Started', value: formatTime(operation.createdAt) },
              { label: 'Duration', value: formatDuration(operation.createdAt, ended) || '-' },
              { label: 'Attempt', value: <span data-testid="operation-attempt">{operation.attempt}</span> },
              { label: 'Started by', value: operation.createdBy ?? '-' },
              { label: 'Last update', value: formatTime(operation.updatedAt) },
            ]}
          />
        </Container>
        <Container
          header={
            <Header variant="h2" counter={`(${done}/${operation.phases.length})`} description={running ? `Now: ${running.title}` : undefined}>
              Phases
            </Header>
          }
        >
          <SpaceBetween size="l">
            <ProgressBar
              value={operation.phases.length ? Math.round((100 * done) / operation.phases.length) : 0}
              label="Progress"
              status={operation.status === 'FAILED' ? 'error' : operation.status === 'SUCCEEDED' ? 'success' : 'in-progress'}
              resultText={operation.status === 'SUCCEEDED' ? 'All phases done' : `Stopped at ${failedPhase?.title ?? 'a phase'}`}
              additionalInfo={running ? running.message ?? undefined : undefined}
            />
            <PhaseSteps phases={operation.phases} />
          </SpaceBetween>
        </Container>
        <ExpandableSection variant="container" headerText="Request">
          <Box variant="code">
            <pre style={{ margin: 0, whiteSpace: 'pre-wrap' }}>{JSON.stringify(operation.request, null, 2)}</pre>
          </Box>
        </ExpandableSection>
      </SpaceBetween>
      {hyperpodAsk && againOpen ? (
        <HyperPodAgain
          cluster={operation.target}
          region={typeof operation.request.region === 'string' ? operation.request.region : undefined}
          ask={hyperpodAsk}
          onClose={() => setAgainOpen(false)}
          onStarted={(next) => {
            setAgainOpen(false);
            navigate(`/operations/${encodeURIComponent(next)}`);
          }}
        />
      ) : null}
      <Modal
        visible={cancelOpen}
        onDismiss={() => setCancelOpen(false)}
        header="Cancel operation"
        closeAriaLabel="Close"
        footer={
          <Box float="right">
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={() => setCancelOpen(false)}>Keep running</Button>
              <Button variant="primary" loading={busy === 'cancel'} onClick={() => void cancel()}>Cancel operation</Button>
            </SpaceBetween>
          </Box>
        }
      >
        <SpaceBetween size="m">
          <Box variant="p">Resources already created are kept. You can retry the operation later; it resumes where it stopped.</Box>
          {cancelOpen ? (
            <DryRunPlan load={() => plan('cancel_operation', { operationId: id }, { body: {} })} deps={[id]} label="What the cancel stops" />
          ) : null}
          <FormField label="Reason" description="Optional; recorded on the operation." constraintText={`${reason.length}/500`}>
            <Textarea value={reason} onChange={({ detail }) => setReason(detail.value.slice(0, 500))} />
          </FormField>
        </SpaceBetween>
      </Modal>
    </PageLayout>
  );
}
