import { describe, expect, it } from 'vitest';

import { EMPTY_FORM, deployBody } from '../inference';

describe('deployBody', () => {
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

  it('adds the L2 cache and routing to a managed endpoint only when chosen', () => {
    const form = { ...EMPTY_FORM, kind: 'managed' as const, endpoint: 'q', instanceType: 'ml.g5.12xlarge', storage: 'shared', modelPath: 'models/Qwen/Qwen3-0.6B' };
    expect(deployBody(form).managed).not.toHaveProperty('kvCache');
    const managed = deployBody({ ...form, l2: 'tieredstorage', routing: 'kvaware' }).managed as Record<string, unknown>;
    expect(managed.kvCache).toEqual({ l1: true, l2: 'tieredstorage' });
    expect(managed.routing).toEqual({ strategy: 'kvaware' });
  });

  it('sends a JumpStart model with its EULA acceptance', () => {
    const body = deployBody({ ...EMPTY_FORM, kind: 'jumpstart', endpoint: 'ds', instanceType: 'ml.g5.8xlarge', modelId: 'm', acceptEula: true });
    expect(body.jumpstart).toEqual({ modelId: 'm', acceptEula: true });
    expect(body).not.toHaveProperty('container');
  });
});
