import { describe, expect, it } from 'vitest';

import { EMPTY_FORM, type EndpointView, autoscaled, deployBody, parseDimensions } from '../inference';

describe('deployBody', () => {
  it('asks for GPU partitions instead of GPUs, and puts the replicas in the team\'s queue at a priority', () => {
    const form = { ...EMPTY_FORM, endpoint: 'small', instanceType: 'ml.p5.48xlarge', partition: 'mig-1g.10gb', partitionCount: 2 };
    const queued = { ...form, namespace: 'hyperpod-ns-research', queue: 'hyperpod-ns-research-localqueue', priority: 'inference-priority' };
    const body = deployBody(queued);
    expect((body.container as { worker: unknown }).worker).toEqual({
      image: 'vllm/vllm-openai:v0.10.1',
      gpus: 0,
      port: 8000,
      acceleratorPartition: { type: 'mig-1g.10gb', count: 2 },
    });
    expect([body.namespace, body.queue, body.priority]).toEqual(['hyperpod-ns-research', 'hyperpod-ns-research-localqueue', 'inference-priority']);
    expect(deployBody(form)).not.toHaveProperty('queue');
    expect((deployBody({ ...form, kind: 'jumpstart', modelId: 'm' }).jumpstart as Record<string, unknown>).acceleratorPartitionType).toBe('mig-1g.10gb');
  });

  it('sends only the section of the chosen kind, with the GPUs as given', () => {
    const body = deployBody({ ...EMPTY_FORM, endpoint: 'vllm', instanceType: 'ml.g5.12xlarge', gpus: 2, service: 'loadBalancer' });
    expect(body).toEqual({
      endpoint: 'vllm',
      kind: 'container',
      instanceType: 'ml.g5.12xlarge',
      replicas: 1,
      container: { worker: { image: 'vllm/vllm-openai:v0.10.1', gpus: 2, port: 8000 }, service: 'loadBalancer' },
    });
  });

  it('makes a model pool with an SGLang router only when asked', () => {
    const form = { ...EMPTY_FORM, endpoint: 'pool-a', instanceType: 'ml.g5.12xlarge', service: 'modelPool' as const };
    expect(deployBody(form).container).toEqual({ worker: { image: 'vllm/vllm-openai:v0.10.1', gpus: 1, port: 8000 }, service: 'modelPool' });
    expect((deployBody({ ...form, router: true }).container as Record<string, unknown>).router).toBe(true);
  });

  it('disaggregates prefill and decode with the SGLang router, or as the operator\'s pdSpec, only when chosen', () => {
    const form = { ...EMPTY_FORM, endpoint: 'pd', instanceType: 'ml.g5.12xlarge', image: 'lmsysorg/sglang:v0.5.2' };
    expect(deployBody(form).container).not.toHaveProperty('pd');
    const container = deployBody({ ...form, pd: true, prefillReplicas: 2, prefillGpus: 4 }).container as Record<string, unknown>;
    expect(container.pd).toEqual({ prefillReplicas: 2, prefillGpus: 4 });
    expect(container.router).toBe(true); // the router pairs the two sides
    const managed = deployBody({ ...form, kind: 'managed', pd: true }).managed as Record<string, unknown>;
    expect(managed.pd).toEqual({ prefillReplicas: 1, prefillGpus: 1 });
  });

  it('spreads one container copy over nodes only when more than one is asked', () => {
    const form = { ...EMPTY_FORM, endpoint: 'big', instanceType: 'ml.p5.48xlarge', image: 'lmsysorg/sglang:v0.5.2' };
    expect(deployBody(form).container).not.toHaveProperty('multiNode');
    const container = deployBody({ ...form, nodes: 2, parallelism: 'pipeline' }).container as Record<string, unknown>;
    expect(container.multiNode).toEqual({ nodes: 2, parallelism: 'pipeline' });
  });

  it('adds the L2 cache and routing to a managed endpoint only when chosen', () => {
    const form = { ...EMPTY_FORM, kind: 'managed' as const, endpoint: 'q', instanceType: 'ml.g5.12xlarge', storage: 'shared', modelPath: 'models/Qwen/Qwen3-0.6B' };
    expect(deployBody(form).managed).not.toHaveProperty('kvCache');
    const managed = deployBody({ ...form, l2: 'tieredstorage', routing: 'kvaware' }).managed as Record<string, unknown>;
    expect(managed.kvCache).toEqual({ l1: true, l2: 'tieredstorage' });
    expect(managed.routing).toEqual({ strategy: 'kvaware' });
    expect(managed).not.toHaveProperty('metrics');
    const measured = deployBody({ ...form, metrics: true, metricsPort: 8000, metricsInterval: 30 }).managed as Record<string, unknown>;
    expect(measured.metrics).toEqual({ enabled: true, scrapeIntervalSeconds: 30, port: 8000 });
  });

  it('sends a JumpStart model with its EULA acceptance', () => {
    const body = deployBody({ ...EMPTY_FORM, kind: 'jumpstart', endpoint: 'ds', instanceType: 'ml.g5.8xlarge', modelId: 'm', acceptEula: true });
    expect(body.jumpstart).toEqual({ modelId: 'm', acceptEula: true });
    expect(body).not.toHaveProperty('container');
  });
});

describe('managed autoscaling on CloudWatch', () => {
  const form = { ...EMPTY_FORM, kind: 'managed' as const, endpoint: 'q', instanceType: 'ml.g5.12xlarge', storage: 'shared', modelPath: 'm' };

  it('sends the CloudWatch trigger with its dimensions and range only when chosen', () => {
    expect(deployBody(form).managed).not.toHaveProperty('autoscaling');
    const chosen = {
      ...form,
      autoscale: 'cloudWatch' as const,
      minReplicas: 1,
      maxReplicas: 3,
      cwNamespace: 'AWS/SageMaker',
      cwMetric: 'Invocations',
      cwDimensions: 'EndpointName=q, VariantName = AllTraffic',
      cwTarget: 10,
      cwStatistic: 'Sum' as const,
    };
    expect((deployBody(chosen).managed as Record<string, unknown>).autoscaling).toEqual({
      minReplicas: 1,
      maxReplicas: 3,
      cloudWatch: {
        namespace: 'AWS/SageMaker',
        metricName: 'Invocations',
        dimensions: [
          { name: 'EndpointName', value: 'q' },
          { name: 'VariantName', value: 'AllTraffic' },
        ],
        targetValue: 10,
        statistic: 'Sum',
      },
    });
  });

  it('never sends autoscaling for a container endpoint from the managed options', () => {
    const body = deployBody({ ...form, kind: 'container', autoscale: 'cloudWatch', cwNamespace: 'AWS/SageMaker' });
    expect(body.container).not.toHaveProperty('autoscaling');
  });

  it('reads blank dimensions as none', () => {
    expect(parseDimensions(' , ')).toEqual([]);
  });

  it('knows when KEDA owns the replicas, so scaling by hand is off', () => {
    const view = { scaling: 'inference operator autoscaling 1-3 replicas on CloudWatch AWS/SageMaker Invocations' };
    expect(autoscaled(view as EndpointView)).toBe(true);
    expect(autoscaled({ scaling: null } as unknown as EndpointView)).toBe(false);
  });
});
