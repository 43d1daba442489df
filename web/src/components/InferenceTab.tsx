// The cluster's inference endpoints: deploy one per kind (container, managed, JumpStart), list them, see
// one's pods and nodes, scale it, send it a chat message, delete it. Every mutation opens its operation.
// ?endpoint=<name> in the URL opens that endpoint.

import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import Box from '@cloudscape-design/components/box';
import Button from '@cloudscape-design/components/button';
import Checkbox from '@cloudscape-design/components/checkbox';
import ColumnLayout from '@cloudscape-design/components/column-layout';
import Container from '@cloudscape-design/components/container';
import Form from '@cloudscape-design/components/form';
import FormField from '@cloudscape-design/components/form-field';
import Header from '@cloudscape-design/components/header';
import Input from '@cloudscape-design/components/input';
import SegmentedControl from '@cloudscape-design/components/segmented-control';
import Select from '@cloudscape-design/components/select';
import SpaceBetween from '@cloudscape-design/components/space-between';
import Table from '@cloudscape-design/components/table';
import Textarea from '@cloudscape-design/components/textarea';

import { ApiError, api } from '../lib/api';
import {
  type DeployForm,
  EMPTY_FORM,
  type EndpointPodView,
  type EndpointView,
  type InvokeView,
  STATISTICS,
  type Statistic,
  autoscaled,
  deployBody,
  inferenceApi,
} from '../lib/inference';
import { useAction, useActions } from '../lib/useAction';
import { useFetch } from '../lib/useFetch';
import { useSession } from '../session';
import { useAnswer } from '../useAnswer';
import { AssignPod, DeleteEndpoint, assignTargets, isPool } from './EndpointActions';
import EndpointSharingFields, { partitionChoices } from './EndpointSharingFields';
import KeyValue from './KeyValue';
import MetricsCharts from './MetricsCharts';
import ErrorAlert from './ErrorAlert';
import ListTable from './ListTable';
import Status from './Status';

const ROUTING = ['', 'prefixaware', 'kvaware', 'session', 'roundrobin'] as const satisfies readonly DeployForm['routing'][];

function Deploy({ cluster, onDone }: { cluster: string; onDone: () => void }) {
  const follow = useAnswer();
  const [edited, setForm] = useState<DeployForm>(EMPTY_FORM);
  // The choices are known: the instance types of the cluster's groups, and the storage Launchpod configured.
  const groups = useFetch(() => api.instanceGroups(cluster), [cluster]);
  const claims = useFetch(() => api.storage(cluster), [cluster]);
  // a flexible group offers each of its types
  const typesOf = (g: { instanceType?: string | null; instanceTypes?: string[] }) =>
    g.instanceTypes?.length ? g.instanceTypes : g.instanceType ? [g.instanceType] : [];
  const typeOptions = [...new Set((groups.data?.items ?? []).flatMap(typesOf))]
    .sort()
    .map((t) => {
      const names = (groups.data?.items ?? []).filter((g) => typesOf(g).includes(t)).map((g) => g.instanceGroup);
      return { value: t, label: t, description: `group ${names.join(', ')}` };
    });
  const storageOptions = (claims.data?.items ?? []).map((c) => ({ value: c.storageName, label: c.storageName, description: `${c.kind === 's3' ? 'S3' : 'FSx for Lustre'} · ${c.source}` }));
  const instanceType = edited.instanceType || typeOptions[0]?.value || '';
  // a partition only while the chosen type's groups offer it
  const offered = partitionChoices(groups.data?.items ?? [], instanceType).some((p) => p.value === edited.partition);
  const form = { ...edited, instanceType, partition: offered ? edited.partition : '' };
  const loadingChoices = groups.loading || claims.loading;
  const pick = (label: string, key: 'instanceType' | 'storage', options: { value: string; label: string; description?: string }[], hint?: string, optional = false) => {
    const all = optional ? [{ value: '', label: 'None' }, ...options] : options;
    return (
      <FormField label={label} description={hint} errorText={fields[key]}>
        <Select
          ariaLabel={label}
          selectedOption={all.find((o) => o.value === form[key]) ?? null}
          onChange={({ detail }) => set({ [key]: detail.selectedOption.value ?? '' } as Partial<DeployForm>)}
          options={all}
          placeholder={options.length ? 'Choose' : loadingChoices ? 'Loading…' : 'None in this cluster yet'}
          statusType={loadingChoices ? 'loading' : 'finished'}
          loadingText="Loading the cluster's choices"
          empty="None in this cluster yet"
        />
      </FormField>
    );
  };
  const { busy, error: failure, run } = useAction();
  const fields = failure instanceof ApiError ? failure.fieldErrors() : {};
  const set = (patch: Partial<DeployForm>) => setForm({ ...form, ...patch });
  const text = (label: string, key: keyof DeployForm, hint?: string) => (
    <FormField label={label} description={hint} errorText={fields[key as string]}>
      <Input ariaLabel={label} value={String(form[key])} onChange={({ detail }) => set({ [key]: detail.value } as Partial<DeployForm>)} />
    </FormField>
  );
  const number = (
    label: string,
    key: 'replicas' | 'gpus' | 'port' | 'minReplicas' | 'maxReplicas' | 'cwTarget' | 'metricsPort' | 'metricsInterval' | 'prefillReplicas' | 'prefillGpus' | 'nodes',
    hint?: string,
    errorText?: string,
  ) => (
    <FormField label={label} description={hint} errorText={errorText ?? fields[key]}>
      <Input ariaLabel={label} type="number" value={String(form[key])} onChange={({ detail }) => set({ [key]: Number(detail.value) })} />
    </FormField>
  );

  const segments = <K extends 'kind' | 'service' | 'parallelism' | 'autoscale'>(
    label: string,
    key: K,
    options: { id: DeployForm[K]; text: string }[],
    hint?: string,
  ) => (
    <FormField label={label} description={hint}>
      <SegmentedControl selectedId={form[key]} onChange={({ detail }) => set({ [key]: detail.selectedId } as Partial<DeployForm>)} options={options} />
    </FormField>
  );

  const submit = () =>
    run(async () => {
      const { data } = await inferenceApi.deploy(cluster, deployBody(form));
      follow(data, onDone);
    });

  return (
    <Container header={<Header variant="h2" description="GPUs are exactly what you give; endpoints run only on GPU instance groups.">Deploy an endpoint</Header>}>
      <Form
        actions={
          <Button variant="primary" loading={busy} disabled={!form.endpoint || !form.instanceType} onClick={() => void submit()}>
            Deploy
          </Button>
        }
      >
        <SpaceBetween size="m">
          {segments('Kind', 'kind', [
            { id: 'container', text: 'Container (vLLM, SGLang, ...)' },
            { id: 'managed', text: 'Managed (inference operator)' },
            { id: 'jumpstart', text: 'JumpStart model' },
          ])}
          <ColumnLayout columns={3}>
            {text('Endpoint name', 'endpoint')}
            {pick('Instance type', 'instanceType', typeOptions, 'the instance type of one of the cluster\'s groups')}
            {number('Replicas', 'replicas')}
          </ColumnLayout>
          {form.kind !== 'jumpstart' && (
            <ColumnLayout columns={3}>
              {text('Image', 'image')}
              {form.partition ? null : number('GPUs per replica', 'gpus')}
              {number('Port', 'port')}
            </ColumnLayout>
          )}
          <EndpointSharingFields cluster={cluster} form={form} set={set} groups={groups.data?.items ?? []} fields={fields} />
          {form.kind === 'container' && (
            <ColumnLayout columns={2}>
              {segments('Service', 'service', [
                { id: 'clusterIP', text: 'In-cluster (ClusterIP)' },
                { id: 'loadBalancer', text: 'Load balancer (NLB)' },
                { id: 'modelPool', text: 'Model pool' },
              ])}
              <FormField
                label="Router"
                description="SGLang images only. In a model pool the router follows the workers assigned to this endpoint."
              >
                <Checkbox checked={form.router} onChange={({ detail }) => set({ router: detail.checked })}>
                  SGLang router in front of the replicas (cache-aware routing)
                </Checkbox>
              </FormField>
              {pick('Storage mounted at /s3', 'storage', storageOptions, 'optional', true)}
            </ColumnLayout>
          )}
          {form.kind === 'container' && (
            <ColumnLayout columns={3}>
              {number(
                'Nodes per copy',
                'nodes',
                'SGLang images: more than 1 spreads one copy of the model over that many nodes (replicas 1)',
                fields['container.multiNode.nodes'] ?? fields['container.multiNode'],
              )}
              {form.nodes > 1 &&
                segments('Parallelism', 'parallelism', [{ id: 'tensor', text: 'Tensor' }, { id: 'pipeline', text: 'Pipeline' }], 'Tensor: every GPU of every node; pipeline: one stage per node')}
            </ColumnLayout>
          )}
          {form.kind === 'managed' && (
            <ColumnLayout columns={2}>
              {pick('Storage', 'storage', storageOptions, 'where the model folder is')}
              {text('Model folder', 'modelPath', 'for example models/Qwen/Qwen3-0.6B')}
              <FormField label="L2 KV cache">
                <SegmentedControl
                  selectedId={form.l2 || 'none'}
                  onChange={({ detail }) => set({ l2: detail.selectedId === 'none' ? '' : 'tieredstorage' })}
                  options={[
                    { id: 'none', text: 'L1 only' },
                    { id: 'tieredstorage', text: 'L2 tiered storage' },
                  ]}
                />
              </FormField>
              <FormField label="Intelligent routing">
                <Select
                  ariaLabel="Intelligent routing"
                  selectedOption={{ value: form.routing, label: form.routing || 'off' }}
                  onChange={({ detail }) => set({ routing: (detail.selectedOption.value ?? '') as DeployForm['routing'] })}
                  options={ROUTING.map((r) => ({ value: r, label: r || 'off' }))}
                />
              </FormField>
            </ColumnLayout>
          )}
          {form.kind !== 'jumpstart' && (
            <ColumnLayout columns={3}>
              <FormField
                label="Prefill/decode"
                description={
                  form.kind === 'container'
                    ? 'SGLang images: the SGLang router hands each request from a prefill worker to a decode worker.'
                    : "vLLM (LMCache) images: the inference operator's pdSpec, long prompts prefilled apart."
                }
                errorText={fields[form.kind]}
              >
                <Checkbox checked={form.pd} onChange={({ detail }) => set({ pd: detail.checked })}>
                  Disaggregate prefill and decode (the replicas decode)
                </Checkbox>
              </FormField>
              {form.pd && number('Prefill workers', 'prefillReplicas')}
              {form.pd && number('GPUs per prefill worker', 'prefillGpus')}
            </ColumnLayout>
          )}
          {form.kind === 'managed' && (
            <ColumnLayout columns={3}>
              <FormField label="Metrics" description="The operator scrapes the model container's metrics.">
                <Checkbox checked={form.metrics} onChange={({ detail }) => set({ metrics: detail.checked })}>
                  Collect metrics
                </Checkbox>
              </FormField>
              {form.metrics && number('Metrics port', 'metricsPort')}
              {form.metrics && number('Scrape interval (s)', 'metricsInterval')}
            </ColumnLayout>
          )}
          {form.kind === 'managed' &&
            segments('Autoscaling', 'autoscale', [{ id: 'none', text: 'Fixed replicas' }, { id: 'cloudWatch', text: 'CloudWatch metric' }], "The inference operator's KEDA sets the replicas from a CloudWatch metric it reads as its role.")}
          {form.kind === 'managed' && form.autoscale === 'cloudWatch' && (
            <ColumnLayout columns={3}>
              {text('Metric namespace', 'cwNamespace', 'for example AWS/SageMaker')}
              {text('Metric name', 'cwMetric', 'for example Invocations')}
              {text('Dimensions (optional)', 'cwDimensions', 'Name=value, comma separated')}
              {number('Target per replica', 'cwTarget')}
              <FormField label="Statistic">
                <Select
                  ariaLabel="Statistic"
                  selectedOption={{ value: form.cwStatistic, label: form.cwStatistic }}
                  onChange={({ detail }) => set({ cwStatistic: (detail.selectedOption.value ?? 'Average') as Statistic })}
                  options={STATISTICS.map((s) => ({ value: s, label: s }))}
                />
              </FormField>
              <ColumnLayout columns={2}>
                {number('Min replicas', 'minReplicas')}
                {number('Max replicas', 'maxReplicas')}
              </ColumnLayout>
            </ColumnLayout>
          )}
          {form.kind === 'jumpstart' && (
            <ColumnLayout columns={3}>
              {text('Model id', 'modelId', 'a JumpStart model id')}
              {text('Model version (optional)', 'modelVersion')}
              <FormField label="License">
                <Checkbox checked={form.acceptEula} onChange={({ detail }) => set({ acceptEula: detail.checked })}>
                  I accept the model's end-user license
                </Checkbox>
              </FormField>
            </ColumnLayout>
          )}
          {failure ? <ErrorAlert error={failure} /> : null}
        </SpaceBetween>
      </Form>
    </Container>
  );
}

function Detail({
  cluster,
  endpoint: listed,
  pools,
  onChanged,
}: {
  cluster: string;
  endpoint: EndpointView;
  pools: string[];
  onChanged: () => void;
}) {
  const follow = useAnswer();
  const { can } = useSession();
  // the endpoint itself, read again while it is open (the list's row until the first answer)
  const fresh = useFetch(() => inferenceApi.endpoint(cluster, listed.endpoint), [cluster, listed.endpoint], 5000);
  const endpoint = fresh.data ?? listed;
  const [deleting, setDeleting] = useState(false);
  const [assigning, setAssigning] = useState<{ pod: string; serves: string | null } | null>(null);
  const pool = isPool(endpoint);
  const [replicas, setReplicas] = useState(String(endpoint.desiredReplicas));
  const [prompt, setPrompt] = useState('Hello! Who are you?');
  const [answer, setAnswer] = useState<InvokeView | null>(null);
  const { busy, error: failure, run } = useActions<'scale' | 'invoke'>();
  const scale = () =>
    run('scale', async () => {
      const { data } = await inferenceApi.scale(cluster, endpoint.endpoint, Number(replicas));
      follow(data, onChanged);
    });
  const invoke = () =>
    run('invoke', async () => {
      setAnswer((await inferenceApi.invoke(cluster, endpoint.endpoint, prompt)).data);
    });

  return (
    <Container
      header={
        <Header
          variant="h2"
          description={endpoint.url ?? 'no URL yet'}
          actions={
            <Button disabled={!can('operator')} disabledReason="Deleting endpoints needs the operator role." onClick={() => setDeleting(true)}>
              Delete
            </Button>
          }
        >
          {endpoint.endpoint}
        </Header>
      }
    >
      <SpaceBetween size="l">
        <ColumnLayout columns={4} variant="text-grid">
          <KeyValue label="Status"><Status value={endpoint.status} /></KeyValue>
          <KeyValue label="Model">{endpoint.model ?? '-'}</KeyValue>
          <KeyValue label="Instance type">{endpoint.instanceType ?? '-'}</KeyValue>
          <KeyValue label="Scaling">{endpoint.scaling ?? 'manual'}</KeyValue>
          {endpoint.metrics ? (
            <KeyValue label="Metrics">
              {endpoint.metrics.enabled
                ? `every ${endpoint.metrics.scrapeIntervalSeconds} s from port ${endpoint.metrics.port} ${endpoint.metrics.path}`
                : 'not collected'}
            </KeyValue>
          ) : null}
        </ColumnLayout>
        {endpoint.message ? <Box color="text-status-warning">{endpoint.message}</Box> : null}
        {endpoint.scalingError ? (
          <Box color="text-status-error">Autoscaling cannot read its metric: {endpoint.scalingError}</Box>
        ) : null}
        <Table
          wrapLines
          variant="embedded"
          header={<Header variant="h3">Pods</Header>}
          items={endpoint.pods ?? []}
          trackBy="name"
          empty={<Box textAlign="center">No pods yet.</Box>}
          columnDefinitions={[
            { id: 'name', header: 'Pod', cell: (p) => p.name, isRowHeader: true },
            { id: 'role', header: 'Role', cell: (p) => (p.role === 'router' ? 'SGLang router' : p.serves ? `serves ${p.serves}` : p.role === 'prefill' || p.role === 'decode' ? `${p.role} worker` : (p.role ?? 'worker')) },
            { id: 'node', header: 'Node', cell: (p) => p.kubernetesNode ?? 'not scheduled' },
            { id: 'phase', header: 'Phase', cell: (p) => <Status value={p.ready ? 'Ready' : p.phase} /> },
            { id: 'message', header: 'Why', cell: (p) => p.message ?? '' },
            ...(pool
              ? [
                  {
                    id: 'assign',
                    header: 'Pool',
                    cell: (p: EndpointPodView) =>
                      p.role === 'router' ? (
                        '-'
                      ) : (
                        <Button
                          variant="inline-link"
                          disabled={!can('operator')}
                          ariaLabel={`Assign ${p.name}`}
                          onClick={() => setAssigning({ pod: p.name, serves: p.serves ?? null })}
                        >
                          Assign
                        </Button>
                      ),
                  },
                ]
              : []),
          ]}
        />
        <SpaceBetween direction="horizontal" size="xs" alignItems="end">
          <FormField label="Replicas">
            <Input ariaLabel="Replicas" type="number" value={replicas} onChange={({ detail }) => setReplicas(detail.value)} />
          </FormField>
          <Button loading={busy === 'scale'} disabled={autoscaled(endpoint)} onClick={() => void scale()}>
            Scale
          </Button>
        </SpaceBetween>
        <FormField label="Message" description="Sent by Launchpod to this endpoint as a chat completion.">
          <Textarea ariaLabel="Message" value={prompt} onChange={({ detail }) => setPrompt(detail.value)} rows={2} />
        </FormField>
        <Button variant="primary" loading={busy === 'invoke'} disabled={!prompt || endpoint.status !== 'Ready'} onClick={() => void invoke()}>
          Send
        </Button>
        {answer ? (
          <Container header={<Header variant="h3">Answer{answer.model ? ` from ${answer.model}` : ''}</Header>}>
            <Box data-testid="invoke-answer">{answer.truncated ? 'The answer was too long and was cut.' : answer.content}</Box>
          </Container>
        ) : null}
        {failure ? <ErrorAlert error={failure} /> : null}
        <ErrorAlert error={fresh.error} />
        <MetricsCharts
          op="get_endpoint_metrics"
          params={{ name: cluster, endpoint: endpoint.endpoint }}
          query={{ namespace: endpoint.namespace }}
          title="Traffic"
        />
      </SpaceBetween>
      {deleting ? <DeleteEndpoint cluster={cluster} endpoint={endpoint} onClose={() => setDeleting(false)} /> : null}
      {assigning ? (
        <AssignPod
          cluster={cluster}
          pool={endpoint.endpoint}
          pod={assigning.pod}
          serves={assigning.serves}
          pools={pools}
          onClose={() => setAssigning(null)}
          onDone={() => {
            setAssigning(null);
            void fresh.reload();
            onChanged();
          }}
        />
      ) : null}
    </Container>
  );
}

export default function InferenceTab({ cluster, ready }: { cluster: string; ready: boolean }) {
  const { data, error, loading, reload } = useFetch(() => inferenceApi.endpoints(cluster), [cluster], 5000);
  // ?endpoint=<name> opens that endpoint: an endpoint-unhealthy notification links here (docs/notifications.md)
  const [params] = useSearchParams();
  const [selected, setSelected] = useState<string | null>(params.get('endpoint'));
  if (!ready) return <Box>Endpoints need the cluster's EKS control plane ACTIVE.</Box>;
  const items = data?.items ?? [];
  const chosen = items.find((e) => e.endpoint === selected) ?? null;
  return (
    <SpaceBetween size="l">
      <ListTable what="endpoints" fetched={{ data, loading, reload }}
        trackBy="endpoint"
        selectionType="single"
        selectedItems={chosen ? [chosen] : []}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems[0]?.endpoint ?? null)}
        ariaLabels={{
          selectionGroupLabel: 'Endpoints',
          itemSelectionLabel: (_, e) => `Select ${e.endpoint}`,
          allItemsSelectionLabel: () => 'Select all',
        }}
        empty="No endpoints yet: deploy one below."
        columnDefinitions={[
          { id: 'endpoint', header: 'Endpoint', cell: (e) => e.endpoint, isRowHeader: true },
          { id: 'kind', header: 'Kind', cell: (e) => e.kind },
          { id: 'status', header: 'Status', cell: (e) => <Status value={e.status} /> },
          { id: 'replicas', header: 'Ready', cell: (e) => `${e.readyReplicas}/${e.desiredReplicas}` },
          { id: 'url', header: 'URL', cell: (e) => e.url ?? '-' },
        ]}
        footer={error ? <ErrorAlert error={error} /> : undefined}
      />
      {chosen ? (
        <Detail
          key={chosen.endpoint}
          cluster={cluster}
          endpoint={chosen}
          pools={assignTargets(items)}
          onChanged={() => void reload()}
        />
      ) : null}
      <Deploy cluster={cluster} onDone={() => void reload()} />
    </SpaceBetween>
  );
}
