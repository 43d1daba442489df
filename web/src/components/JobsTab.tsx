// The cluster's training jobs: submit one from a recipe, list them, and open one to see its status, the
// restart budget, its MLflow run, its pods with node and zone, recent events and its log, followed live
// (lib/useJobLog.ts). ?job=<name> in the URL opens that job.

import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import Alert from '@cloudscape-design/components/alert';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import Form from '@cloudscape-design/components/form';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import Link from '@cloudscape-design/components/link';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import StatusIndicator from '@cloudscape-design/components/status-indicator';
import Table from '@cloudscape-design/components/table';

import { ApiError, api, plan } from '../lib/api';
import { useSession } from '../session';
import { RECIPES, jobsApi } from '../lib/jobs';
import type { JobView } from '../lib/jobs';
import { formatTime } from '../lib/format';
import { useAction } from '../lib/useAction';
import { trainingExpected } from '../lib/metrics';
import { useFetch } from '../lib/useFetch';
import { useGovernanceChoices } from '../lib/useGovernanceChoices';
import type { Transport } from '../lib/socket';
import { LOG_POLL_MS, useJobLog } from '../lib/useJobLog';
import ConfirmAction from './ConfirmAction';
import { NcclDiagnosis } from './Diagnoses';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import KeyValue from './KeyValue';
import MetricsCharts from './MetricsCharts';
import SelectField from './SelectField';
import Status from './Status';

const TERMINAL = ['Succeeded', 'Failed'];

// How a HyperPodPyTorchJob recovers from a failed node: the operator's restart from the code's last checkpoint,
// elastic training (fewer nodes until the node is back) or checkpointless training (state from peer replicas).
type Recovery = 'checkpoint' | 'elastic' | 'checkpointless';
const RECOVERY_LABEL: Record<Recovery, string> = {
  checkpoint: 'Restart from the last checkpoint',
  elastic: 'Elastic: continue with fewer nodes',
  checkpointless: 'Checkpointless: recover from peers',
};
const RECOVERY: Record<Recovery, string> = {
  checkpoint: 'The whole job restarts and redoes the steps since its last checkpoint',
  elastic: 'Needs code that saves on elastic events; not on Spot or with tiered checkpointing',
  checkpointless: 'Needs 2 or more nodes and code built on the checkpointless training package',
};

function recoveryFields(recovery: Recovery, fewest: number, nodes: number): Record<string, unknown> {
  if (recovery === 'elastic') return { elasticPolicy: { minReplicas: fewest, maxReplicas: nodes } };
  if (recovery === 'checkpointless') return { checkpointless: {} };
  return {};
}

function SubmitJob({ cluster, onSubmitted }: { cluster: string; onSubmitted: (job: string, namespace: string) => void }) {
  const [recipe, setRecipe] = useState(RECIPES[0]);
  const [jobName, setJobName] = useState('');
  const [chosenGroup, setInstanceGroup] = useState('');
  const [replicas, setReplicas] = useState('1');
  const [chosenClaim, setStorageClaim] = useState('');
  const [team, setTeam] = useState('');
  const [priority, setPriority] = useState('');
  const [recovery, setRecovery] = useState<Recovery>('checkpoint');
  const [fewestNodes, setFewestNodes] = useState('1');
  const { busy, error: failure, run } = useAction();
  const [warnings, setWarnings] = useState<string[]>([]);
  const fields = failure instanceof ApiError ? failure.fieldErrors() : {};
  // The choices are known: the cluster's instance groups and the storage Launchpod configured on it.
  const groups = useFetch(() => api.instanceGroups(cluster), [cluster]);
  const claims = useFetch(() => api.storage(cluster), [cluster]);
  // Task governance: a team's queue and a priority class, when there are any.
  const { teams, teamOptions, priorityOptions } = useGovernanceChoices(cluster, 'team');
  const chosenTeam = teams.find((t) => t.team === team);
  const groupOptions = (groups.data?.items ?? []).map((g) => ({
    value: g.instanceGroup,
    label: g.instanceGroup,
    description: `${g.instanceType ?? 'no type yet'} · ${g.currentCount} node${g.currentCount === 1 ? '' : 's'}`,
  }));
  const claimOptions = (claims.data?.items ?? []).map((c) => ({
    value: c.storageName,
    label: c.storageName,
    description: `${c.kind} · ${c.source} · ${c.status}`,
  }));
  const instanceGroup = chosenGroup || groupOptions[0]?.value || '';
  const storageClaim = chosenClaim || claimOptions[0]?.value || '';

  const submit = () =>
    run(async () => {
      setWarnings([]);
      const queued = chosenTeam ? { namespace: chosenTeam.namespace, queue: chosenTeam.queue } : {};
      const body = {
        jobName, kind: recipe.kind, recipe: recipe.name, instanceGroup, replicas: Number(replicas), storageClaim,
        ...queued, ...(chosenTeam && priority ? { priority } : {}),
        ...(recipe.kind === 'pytorch' ? recoveryFields(recovery, Number(fewestNodes), Number(replicas)) : {}),
      };
      const { data } = await jobsApi.submit(cluster, body);
      setWarnings(data.warnings ?? []);
      onSubmitted(data.jobName, data.namespace);
    });

  return (
    <Container header={<Header variant="h2" description="Datasets, models and jobs/<job>/ on the shared bucket, mounted at /data">Submit a job</Header>}>
      <Form
        actions={
          <Button variant="primary" loading={busy} disabled={!jobName || !instanceGroup || !storageClaim} onClick={() => void submit()}>
            Submit job
          </Button>
        }
        errorText={failure ? <ErrorAlert error={failure} /> : undefined}
      >
        <SpaceBetween size="m">
          <ColumnLayout columns={3}>
            <FormField label="Recipe">
              <Select
                selectedOption={{ value: recipe.name, label: recipe.title }}
                options={RECIPES.map((r) => ({ value: r.name, label: r.title, description: r.kind }))}
                onChange={({ detail }) => setRecipe(RECIPES.find((r) => r.name === detail.selectedOption.value) ?? RECIPES[0])}
              />
            </FormField>
            <FormField label="Job name" errorText={fields.jobName}>
              <Input value={jobName} onChange={({ detail }) => setJobName(detail.value)} placeholder="qwen-sft" />
            </FormField>
            <SelectField
              label="Instance group"
              errorText={fields.instanceGroup}
              value={instanceGroup}
              options={groupOptions}
              loading={groups.loading}
              placeholder="Choose an instance group"
              empty="The cluster has no instance group yet"
              onChange={setInstanceGroup}
            />
            <FormField label="Nodes" description="Each pod takes a whole node" errorText={fields.replicas}>
              <Input type="number" value={replicas} onChange={({ detail }) => setReplicas(detail.value)} />
            </FormField>
            <SelectField
              label="Storage claim"
              errorText={fields.storageClaim}
              value={storageClaim}
              options={claimOptions}
              loading={claims.loading}
              placeholder="Choose a storage claim"
              empty="No storage yet: configure the shared bucket on the Storage tab"
              onChange={setStorageClaim}
            />
            {recipe.kind === 'pytorch' ? (
              <FormField label="On a node failure" description={RECOVERY[recovery]} errorText={fields.checkpointless ?? fields.elasticPolicy}>
                <Select
                  selectedOption={{ value: recovery, label: RECOVERY_LABEL[recovery] }}
                  options={(Object.keys(RECOVERY) as Recovery[]).map((r) => ({ value: r, label: RECOVERY_LABEL[r] }))}
                  onChange={({ detail }) => setRecovery(detail.selectedOption.value as Recovery)}
                />
              </FormField>
            ) : null}
            {recipe.kind === 'pytorch' && recovery === 'elastic' ? (
              <FormField label="Fewest nodes" description="The job continues down to this many" errorText={fields['elasticPolicy.minReplicas']}>
                <Input type="number" value={fewestNodes} onChange={({ detail }) => setFewestNodes(detail.value)} />
              </FormField>
            ) : null}
            {teams.length ? (
              <>
                <FormField label="Team" description="Its queue admits the job within the team's share">
                  <Select
                    selectedOption={teamOptions.find((o) => o.value === team) ?? teamOptions[0]}
                    options={teamOptions}
                    onChange={({ detail }) => setTeam(detail.selectedOption.value ?? '')}
                  />
                </FormField>
                <FormField label="Priority" description="Higher classes run first and may preempt lower ones">
                  <Select
                    disabled={!chosenTeam}
                    selectedOption={priorityOptions.find((o) => o.value === priority) ?? priorityOptions[0]}
                    options={priorityOptions}
                    onChange={({ detail }) => setPriority(detail.selectedOption.value ?? '')}
                  />
                </FormField>
              </>
            ) : null}
          </ColumnLayout>
          {warnings.map((w) => (
            <Alert key={w} type="warning" header="Submitted, but not all of it can run yet">
              {w}
            </Alert>
          ))}
        </SpaceBetween>
      </Form>
    </Container>
  );
}

function LogTransport({ transport, ended, reason }: { transport: Transport; ended: boolean; reason: string | null }) {
  let status = <StatusIndicator type="loading">Connecting</StatusIndicator>;
  if (ended) status = <StatusIndicator type="stopped">Ended{reason ? `: ${reason}` : ''}</StatusIndicator>;
  else if (transport === 'websocket') status = <StatusIndicator type="success">Live over WebSocket</StatusIndicator>;
  else if (transport === 'polling') status = <StatusIndicator type="pending">Refreshing every {LOG_POLL_MS / 1000} s</StatusIndicator>;
  return (
    <span data-testid="job-log-transport" style={{ marginLeft: 8 }}>
      {status}
    </span>
  );
}

function DeleteJob({ cluster, job, namespace, onClose, onDeleted }: { cluster: string; job: string; namespace?: string; onClose: () => void; onDeleted: () => void }) {
  return (
    <ConfirmAction
      header={`Delete job ${job}?`}
      action="Delete job"
      loadPlan={() => plan('delete_job', { name: cluster, jobName: job }, { query: { confirm: job, namespace } })}
      planDeps={[cluster, job]}
      planLabel="What the delete does"
      onClose={onClose}
      onConfirm={async () => {
        await jobsApi.remove(cluster, job, namespace);
        onDeleted();
      }}
    >
      <Box>Its pods stop at once. What it wrote to the shared storage (checkpoints, outputs) stays.</Box>
    </ConfirmAction>
  );
}

function JobDetail({
  cluster,
  job,
  namespace,
  onClose,
  onEnded,
  onDeleted,
}: {
  cluster: string;
  job: string;
  namespace?: string;
  onClose: () => void;
  onEnded: () => void;
  onDeleted: () => void;
}) {
  const { can, notify } = useSession();
  const [deleting, setDeleting] = useState(false);
  const [view, setView] = useState<JobView | null>(null);
  const logRef = useRef<HTMLPreElement>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const running = !view || !TERMINAL.includes(view.status);
  const log = useJobLog(cluster, job, view?.namespace, Boolean(view?.pods?.length), running);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    async function poll() {
      try {
        const { data } = await jobsApi.get(cluster, job, namespace);
        if (stopped) return;
        setView(data);
        if (!TERMINAL.includes(data.status)) timer = setTimeout(() => void poll(), 1000);
        else onEnded();
      } catch (caught) {
        if (!stopped) setFailure(caught);
      }
    }
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cluster, job]);

  useEffect(() => {
    // follow the tail, as a terminal does
    if (logRef.current) logRef.current.scrollTop = logRef.current.scrollHeight;
  }, [log.lines]);

  const budget = view?.budget;
  return (
    <SpaceBetween size="m">
      <Container
        header={
          <Header
            variant="h2"
            actions={
              <SpaceBetween direction="horizontal" size="xs">
                <Button
                  disabled={!can('operator')}
                  disabledReason="Deleting jobs needs the operator role."
                  onClick={() => setDeleting(true)}
                >
                  Delete
                </Button>
                <Button onClick={onClose}>Close</Button>
              </SpaceBetween>
            }
            description={view?.message ?? undefined}
          >
            {job}
          </Header>
        }
      >
        {failure ? <ErrorAlert error={failure} /> : null}
        {view ? (
          <ColumnLayout columns={4} variant="text-grid">
            <KeyValue label="Status" testId="job-status">
              <Status value={view.status} />
              {view.reason ? <Box variant="small" display="block">{view.reason}</Box> : null}
              {view.status === 'Queued' && view.message ? (
                <Box variant="small" display="block" data-testid="job-waiting">
                  Waiting: {view.message}
                </Box>
              ) : null}
            </KeyValue>
            <KeyValue label="Recipe">{view.recipe ?? 'custom image'} ({view.kind}) on {view.instanceType ?? '-'}</KeyValue>
            <KeyValue label="Restart budget">
              {budget
                ? `${budget.processRestarts} process, ${budget.fullJobRestarts} full; ${budget.retriesUsed} used, ${budget.retriesLeft ?? '-'} left`
                : 'not a HyperPodPyTorchJob'}
            </KeyValue>
            <KeyValue label="Hang detections">{view.hangDetections}</KeyValue>
            <KeyValue label="MLflow" testId="job-mlflow"><MlflowLink mlflow={view.mlflow ?? null} /></KeyValue>
          </ColumnLayout>
        ) : (
          <Box>Loading</Box>
        )}
      </Container>
      <Table
        wrapLines
        variant="container"
        header={<Header variant="h3">Pods</Header>}
        items={view?.pods ?? []}
        trackBy="name"
        empty={<Box textAlign="center">No pods yet.</Box>}
        columnDefinitions={[
          { id: 'name', header: 'Pod', cell: (p) => p.name, isRowHeader: true },
          { id: 'phase', header: 'Phase', cell: (p) => <Status value={p.phase} /> },
          { id: 'node', header: 'Node', cell: (p) => p.kubernetesNode ?? '-' },
          { id: 'zone', header: 'Zone', cell: (p) => p.availabilityZone ?? '-' },
        ]}
      />
      <Container
        header={
          <Header
            variant="h3"
            description={
              log.view?.retained
                ? `${log.view.pod} / ${log.view.container}` +
                  (log.view.source === 'cloudwatch' ? ' — from CloudWatch Logs (the pod is gone)' : '')
                : undefined
            }
            info={
              log.view?.retained && log.view.source !== 'cloudwatch' ? (
                <LogTransport transport={log.transport} ended={log.ended} reason={log.reason} />
              ) : undefined
            }
          >
            Log
          </Header>
        }
      >
        {log.error ? <ErrorAlert error={log.error} /> : null}
        <pre ref={logRef} data-testid="job-log" tabIndex={0} aria-label="Job log" style={{ maxHeight: 320, overflow: 'auto', margin: 0 }}>
          {log.view && !log.view.retained ? log.view.note : log.lines.length ? log.lines.join('\n') : 'No log yet.'}
        </pre>
      </Container>
      <MetricsCharts
        op="get_job_metrics"
        params={{ name: cluster, jobName: job }}
        query={view?.namespace ? { namespace: view.namespace } : undefined}
        title="GPU use of the job's nodes, its loss and throughput"
        expect={view ? trainingExpected(Boolean(view.mlflow)) : []}
      />
      <Table
        wrapLines
        variant="container"
        header={<Header variant="h3">Recent events</Header>}
        items={view?.events ?? []}
        empty={<Box textAlign="center">No events.</Box>}
        columnDefinitions={[
          { id: 'time', header: 'Time', cell: (e) => (e.time ? formatTime(e.time) : '-') },
          { id: 'reason', header: 'Reason', cell: (e) => e.reason },
          { id: 'object', header: 'Object', cell: (e) => e.object },
          { id: 'message', header: 'Message', cell: (e) => e.message },
        ]}
      />
      <NcclDiagnosis cluster={cluster} job={job} namespace={view?.namespace ?? namespace} />
      {deleting ? (
        <DeleteJob
          cluster={cluster}
          job={job}
          namespace={namespace}
          onClose={() => setDeleting(false)}
          onDeleted={() => {
            notify({ type: 'success', header: `Deleted job ${job}` });
            onDeleted();
          }}
        />
      ) : null}
    </SpaceBetween>
  );
}

export default function JobsTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  // ?job=<name>[&namespace=<ns>] opens that job: a job-failed notification links here (docs/notifications.md)
  const [params] = useSearchParams();
  const linked = params.get('job');
  const [selected, setSelected] = useState<{ job: string; namespace: string } | null>(
    linked ? { job: linked, namespace: params.get('namespace') ?? 'default' } : null,
  );
  const { data, error, loading, reload } = useFetch(
    () => (ready ? jobsApi.list(cluster) : Promise.resolve({ data: { cluster, items: [] } })),
    [cluster, ready],
    5000,
  );
  if (!ready) return <Box>Jobs run on the HyperPod cluster; create it first.</Box>;
  return (
    <SpaceBetween size="l">
      <SubmitJob
        cluster={cluster}
        onSubmitted={(job, namespace) => {
          setSelected({ job, namespace });
          void reload();
        }}
      />
      <ListTable what="jobs" fetched={{ data, loading, reload }}
        trackBy="jobName"
        empty="No training jobs."
        columnDefinitions={[
          {
            id: 'name',
            header: 'Job',
            isRowHeader: true,
            cell: (j) => (
              <Button variant="inline-link" onClick={() => setSelected({ job: j.jobName, namespace: j.namespace })}>
                {j.jobName}
              </Button>
            ),
          },
          { id: 'recipe', header: 'Recipe', cell: (j) => j.recipe ?? 'custom' },
          { id: 'kind', header: 'Kind', cell: (j) => j.kind },
          { id: 'status', header: 'Status', cell: (j) => <Status value={j.status} /> },
          { id: 'reason', header: 'Reason', cell: (j) => j.reason ?? '' },
        ]}
        footer={error ? <ErrorAlert error={error} /> : undefined}
      />
      {selected ? (
        <JobDetail
          key={`${selected.namespace}/${selected.job}`}
          cluster={cluster}
          job={selected.job}
          namespace={selected.namespace}
          onClose={() => setSelected(null)}
          onEnded={() => void reload()}
          onDeleted={() => {
            setSelected(null);
            void reload();
          }}
        />
      ) : null}
    </SpaceBetween>
  );
}

// The job's MLflow run through a presigned URL (5 minutes, usable once; each refresh of the view brings a new one).
function MlflowLink({ mlflow }: { mlflow: JobView['mlflow'] }) {
  if (!mlflow) return <>not logged (the cluster had no tracking server when the job was submitted)</>;
  if (!mlflow.url) return <>experiment {mlflow.experiment ?? '-'}; the tracking server is not ready yet</>;
  return (
    <Link external href={mlflow.url} target="_blank">
      {mlflow.runId ? `Run ${mlflow.runName ?? mlflow.runId}` : `Experiment ${mlflow.experiment ?? ''} (no run yet)`}
    </Link>
  );
}
