// The cluster's SageMaker managed MLflow tracking server: its state, the MLflow UI (a presigned URL, valid
// 5 minutes and once, so it is asked for at the click), and setting one up or picking an existing one.
// https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-create-tracking-server.html

import { useState } from 'react';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Container from '@cloudscape-design/components/container';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import KeyValuePairs from '@cloudscape-design/components/key-value-pairs';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';

import type { components } from '../api/schema';
import { ApiError, call } from '../lib/api';
import { useAction } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import { ConfirmOperation } from './ConfirmAction';
import ErrorAlert from './ErrorAlert';
import SelectField from './SelectField';

type MlflowView = components['schemas']['MlflowView'];
const SIZES = [
  { value: 'Small', label: 'Small', description: 'up to 25 users' },
  { value: 'Medium', label: 'Medium', description: 'up to 50 users' },
  { value: 'Large', label: 'Large', description: 'up to 100 users' },
];
// AWS's TrackingServerStatus: Created is the one that serves; ...Failed ends; the rest are on their way.
function serverStatus(status: string) {
  const type = status === 'Created' ? 'success' : status.endsWith('Failed') ? 'error' : status === 'Stopped' ? 'stopped' : 'in-progress';
  return <StatusIndicator type={type}>{status}</StatusIndicator>;
}
const SERVER = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$/;

function SetUp({ cluster, current, onClose }: { cluster: string; current: MlflowView | null; onClose: () => void }) {
  const [server, setServer] = useState('');
  const [size, setSize] = useState(SIZES[0].value);
  const valid = !server || SERVER.test(server);
  const body = { ...(server ? { trackingServerName: server } : {}), size };
  return (
    <ConfirmOperation
      header={current ? 'Change the MLflow tracking server' : 'Set up MLflow'}
      action={current ? 'Change server' : 'Set up'}
      ready={valid}
      operation="configure_mlflow"
      params={{ name: cluster }}
      options={{ body }}
      planLabel="What it does"
      onClose={onClose}
    >
      <Box>
        Jobs submitted afterwards log their runs to it. A new server keeps its artifacts under mlflow/ in the shared
        bucket; AWS takes up to 25 minutes to create one.
      </Box>
      <FormField
        label={
          <span>
            Tracking server <i>- optional</i>
          </span>
        }
        description={`An existing server of this account to use, or a new one's name. Empty: launchpod-${cluster}-mlflow.`}
        errorText={valid ? undefined : 'Letters, digits and hyphens; starts and ends with a letter or digit.'}
      >
        <Input value={server} onChange={({ detail }) => setServer(detail.value.trim())} ariaLabel="Tracking server" />
      </FormField>
      <SelectField label="Size of a new server" value={size} options={SIZES} onChange={setSize} />
    </ConfirmOperation>
  );
}

export default function MlflowSection({ cluster }: { cluster: string }) {
  const { can } = useSession();
  const { data, error, reload } = useFetch(() => call<MlflowView>('get_mlflow', { name: cluster }), [cluster], 15000);
  const [open, setOpen] = useState(false);
  const { busy: opening, error: openError, setError: setOpenError, run } = useAction();
  const none = error instanceof ApiError && error.status === 404;
  const server = none ? null : data;

  const openUi = () =>
    run(async () => {
      const { data: fresh } = await call<MlflowView>('get_mlflow', { name: cluster });
      if (!fresh.url) throw new Error(`The tracking server is ${fresh.status}; its UI opens once it is Created.`);
      window.open(fresh.url, '_blank', 'noopener');
    });

  return (
    <Container
      header={
        <Header
          variant="h2"
          description="SageMaker managed MLflow: experiments and runs of this cluster's training jobs."
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button iconName="refresh" ariaLabel="Refresh MLflow" onClick={() => void reload()} />
              {server ? (
                <Button iconName="external" iconAlign="right" loading={opening} disabled={server.status !== 'Created'} onClick={() => void openUi()}>
                  Open MLflow
                </Button>
              ) : null}
              <Button
                variant={server ? 'normal' : 'primary'}
                disabled={!can('operator')}
                disabledReason="Setting up MLflow needs the operator role."
                onClick={() => setOpen(true)}
              >
                {server ? 'Change server' : 'Set up MLflow'}
              </Button>
            </SpaceBetween>
          }
        >
          MLflow
        </Header>
      }
    >
      <SpaceBetween size="s">
        {none ? <Box>No tracking server yet: jobs run without experiment tracking until one is set up.</Box> : <ErrorAlert error={error} />}
        <ErrorAlert error={openError} onDismiss={() => setOpenError(null)} />
        {server ? (
          <KeyValuePairs
            columns={3}
            items={[
              { label: 'Tracking server', value: server.trackingServerName },
              { label: 'Status', value: serverStatus(server.status) },
              { label: 'Size', value: server.size ?? '-' },
              { label: 'MLflow version', value: server.mlflowVersion ?? '-' },
              { label: 'Artifacts', value: server.artifactStoreUri ?? '-' },
              ...(server.message ? [{ label: 'Note', value: server.message }] : []),
            ]}
          />
        ) : null}
      </SpaceBetween>
      {open ? <SetUp cluster={cluster} current={server} onClose={() => setOpen(false)} /> : null}
    </Container>
  );
}
