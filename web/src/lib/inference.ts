// Inference endpoints and models over REST: views, the deploy body per kind, and the calls.

import { call } from './api';
import type { components } from '../api/schema';
import type { NoopView, OperationAcceptedView } from './types';

// Views and enums from the API's OpenAPI document (src/api/schema.d.ts).
type Schemas = components['schemas'];
export type EndpointKind = Schemas['CreateEndpointRequest']['kind'];
export type EndpointPodView = Schemas['EndpointPodView'];
export type EndpointView = Schemas['EndpointView'];
export type InvokeView = Schemas['InvokeView'];
export type AssignPodView = Schemas['AssignPodView'];
// In-cluster, a load balancer, or a model pool (warm workers a Service selects by a binding label, so a pod
// can be reassigned to another pool endpoint).
type Service = NonNullable<Schemas['ContainerSpec']['service']>;
// The form's L2 choice: none, or the tiered storage the operator manages (redis needs a URL the form does not ask).
type L2 = '' | Extract<NonNullable<Schemas['KvCacheSpec']['l2']>, 'tieredstorage'>;
type Routing = '' | Schemas['RoutingSpec']['strategy'];
// Managed endpoints may autoscale on a CloudWatch metric (the inference operator's KEDA reads it).
export type Statistic = NonNullable<Schemas['CloudWatchTrigger']['statistic']>;
export const STATISTICS = ['Average', 'Sum', 'Minimum', 'Maximum', 'SampleCount'] as const satisfies readonly Statistic[];

export interface DeployForm {
  kind: EndpointKind;
  endpoint: string;
  instanceType: string;
  replicas: number;
  image: string;
  gpus: number;
  port: number;
  service: Service;
  // SGLang only: a router (cache-aware routing) in front of the replicas
  router: boolean;
  // prefill/decode disaggregation: the replicas decode, these prefill (container: SGLang with its router;
  // managed: the inference operator's pdSpec, vLLM)
  pd: boolean;
  prefillReplicas: number;
  prefillGpus: number;
  // container (SGLang): one copy of the model over this many nodes (1: on one node), tensor or pipeline parallel
  nodes: number;
  parallelism: 'tensor' | 'pipeline';
  storage: string;
  modelPath: string;
  l2: L2;
  routing: Routing;
  modelId: string;
  modelVersion: string;
  acceptEula: boolean;
  autoscale: 'none' | 'cloudWatch';
  minReplicas: number;
  maxReplicas: number;
  cwNamespace: string;
  cwMetric: string;
  cwDimensions: string;
  cwTarget: number;
  cwStatistic: Statistic;
  // managed: the operator's metrics collection (spec.metrics); off leaves the operator's defaults
  metrics: boolean;
  metricsPort: number;
  metricsInterval: number;
  // GPU partitions (a MIG group's profile, e.g. mig-1g.10gb) per replica instead of whole GPUs; '' for whole GPUs
  partition: string;
  partitionCount: number;
  // task governance: a team's queue (in its namespace) and a priority class; '' for none
  namespace: string;
  queue: string;
  priority: string;
}

export const EMPTY_FORM: DeployForm = {
  kind: 'container',
  endpoint: '',
  instanceType: '',
  replicas: 1,
  image: 'vllm/vllm-openai:v0.10.1',
  gpus: 1,
  port: 8000,
  service: 'clusterIP',
  router: false,
  pd: false,
  prefillReplicas: 1,
  prefillGpus: 1,
  nodes: 1,
  parallelism: 'tensor',
  storage: '',
  modelPath: '',
  l2: '',
  routing: '',
  modelId: '',
  modelVersion: '',
  acceptEula: false,
  autoscale: 'none',
  minReplicas: 1,
  maxReplicas: 4,
  cwNamespace: '',
  cwMetric: '',
  cwDimensions: '',
  cwTarget: 10,
  cwStatistic: 'Average',
  metrics: false,
  metricsPort: 8080,
  metricsInterval: 15,
  partition: '',
  partitionCount: 1,
  namespace: '',
  queue: '',
  priority: '',
};

/** "EndpointName=qwen, Variant=AllTraffic" as CloudWatch dimensions (blank entries skipped; the API checks names). */
export function parseDimensions(text: string): { name: string; value: string }[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 ? { name: part, value: '' } : { name: part.slice(0, at).trim(), value: part.slice(at + 1).trim() };
    });
}

/** The POST body for the form's kind: only that kind's section, and only the options set. */
export function deployBody(form: DeployForm): Record<string, unknown> {
  const queued = form.queue
    ? { namespace: form.namespace, queue: form.queue, ...(form.priority ? { priority: form.priority } : {}) }
    : {};
  const base = { endpoint: form.endpoint, kind: form.kind, instanceType: form.instanceType, replicas: form.replicas, ...queued };
  const worker = form.partition
    ? { image: form.image, gpus: 0, port: form.port, acceleratorPartition: { type: form.partition, count: form.partitionCount } }
    : { image: form.image, gpus: form.gpus, port: form.port };
  if (form.kind === 'jumpstart') {
    const jumpstart: Record<string, unknown> = { modelId: form.modelId, acceptEula: form.acceptEula };
    if (form.modelVersion) jumpstart.modelVersion = form.modelVersion;
    if (form.partition) jumpstart.acceleratorPartitionType = form.partition;
    return { ...base, jumpstart };
  }
  if (form.kind === 'managed') {
    const managed: Record<string, unknown> = { storageName: form.storage, modelPath: form.modelPath, worker };
    if (form.l2) managed.kvCache = { l1: true, l2: form.l2 };
    if (form.routing) managed.routing = { strategy: form.routing };
    if (form.pd) managed.pd = { prefillReplicas: form.prefillReplicas, prefillGpus: form.prefillGpus };
    if (form.metrics) managed.metrics = { enabled: true, scrapeIntervalSeconds: form.metricsInterval, port: form.metricsPort };
    if (form.autoscale === 'cloudWatch') {
      managed.autoscaling = {
        minReplicas: form.minReplicas,
        maxReplicas: form.maxReplicas,
        cloudWatch: {
          namespace: form.cwNamespace,
          metricName: form.cwMetric,
          dimensions: parseDimensions(form.cwDimensions),
          targetValue: form.cwTarget,
          statistic: form.cwStatistic,
        },
      };
    }
    return { ...base, managed };
  }
  const container: Record<string, unknown> = { worker, service: form.service };
  // the SGLang router pairs each prefill worker with a decode worker, so disaggregation brings it along
  if (form.router || form.pd) container.router = true;
  if (form.pd) container.pd = { prefillReplicas: form.prefillReplicas, prefillGpus: form.prefillGpus };
  if (form.storage) container.storageClaim = form.storage;
  if (form.nodes > 1) container.multiNode = { nodes: form.nodes, parallelism: form.parallelism };
  return { ...base, container };
}

/** KEDA sets the endpoint's replicas (Launchpod's ScaledObject, or the inference operator's autoscaling). */
export function autoscaled(endpoint: EndpointView): boolean {
  return Boolean(endpoint.scaling?.startsWith('KEDA') || endpoint.scaling?.startsWith('inference operator autoscaling'));
}

const at = (cluster: string, endpoint: string) => ({ name: cluster, endpoint });

export const inferenceApi = {
  endpoints: (cluster: string) => call<{ cluster: string; items: EndpointView[] }>('list_endpoints', { name: cluster }),
  endpoint: (cluster: string, endpoint: string) => call<EndpointView>('get_endpoint', at(cluster, endpoint)),
  deploy: (cluster: string, body: unknown) =>
    call<OperationAcceptedView | NoopView>('create_endpoint', { name: cluster }, { body }),
  scale: (cluster: string, endpoint: string, replicas: number) =>
    call<OperationAcceptedView | NoopView>('scale_endpoint', at(cluster, endpoint), { body: { replicas } }),
  invoke: (cluster: string, endpoint: string, prompt: string) =>
    call<InvokeView>('invoke_endpoint', at(cluster, endpoint), {
      body: { messages: [{ role: 'user', content: prompt }], max_tokens: 256 },
    }),
  assignPod: (cluster: string, pool: string, pod: string, endpoint: string) =>
    call<AssignPodView>('assign_pod', { name: cluster, pool }, { body: { pod, endpoint } }),
};
