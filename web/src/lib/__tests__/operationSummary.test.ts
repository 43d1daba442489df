import { describe, expect, it } from 'vitest';

import { operationSummary } from '../operationSummary';

describe('operation summary', () => {
  it('tells an add from a scale and a delete of instance groups', () => {
    const add = { action: 'add', group: 'cpu', add: { instanceType: 'ml.m5.2xlarge', instanceCount: 1 }, zone: 'us-east-1a' };
    expect(operationSummary({ kind: 'instance-groups', request: add })).toBe('Add group cpu (1 × ml.m5.2xlarge)');
    const scale = { action: 'update', group: 'cpu', changes: { instanceCount: 2 } };
    expect(operationSummary({ kind: 'instance-groups', request: scale })).toBe('Group cpu: scale to 2');
    expect(operationSummary({ kind: 'instance-groups', request: { action: 'delete', group: 'cpu' } })).toBe('Delete group cpu');
  });

  it('names what a provision makes and which features change', () => {
    const provision = {
      controlPlane: { name: 'a' },
      hyperpod: { availabilityZone: 'us-east-1a', instanceGroups: [{ instanceGroup: 'gpu', instanceType: 'ml.p5.48xlarge', instanceCount: 2 }] },
      storage: { kind: 's3', storageName: 'shared' },
    };
    expect(operationSummary({ kind: 'provision-cluster', request: provision })).toBe(
      'EKS control plane; HyperPod in us-east-1a: gpu (2 × ml.p5.48xlarge); S3 storage shared',
    );
    // an operation recorded before the rename calls the group name
    const older = { availabilityZone: 'us-east-1a', instanceGroups: [{ name: 'gpu', instanceType: 'ml.p5.48xlarge', instanceCount: 2 }] };
    expect(operationSummary({ kind: 'create-hyperpod', request: older })).toBe('HyperPod in us-east-1a: gpu (2 × ml.p5.48xlarge)');
    expect(operationSummary({ kind: 'autoscaling', request: { enabled: true, instanceGroups: ['gpu', 'cpu'] } })).toBe('Autoscaling on for gpu, cpu');
    const features = { name: 'a', trainingOperator: { enabled: true }, tieredCheckpointing: { enabled: false } };
    expect(operationSummary({ kind: 'configure-features', request: features })).toBe('Training operator on, tiered checkpointing off');
  });

  it('says an endpoint action, and falls back to the first planned step', () => {
    expect(operationSummary({ kind: 'managed', request: { action: 'scale', endpoint: 'chat', replicas: 3 } })).toBe(
      'Scale endpoint chat to 3 replicas',
    );
    expect(operationSummary({ kind: 'new-kind', request: {}, plan: [{ action: 'create', target: 'thing x' }] })).toBe('Create thing x');
  });
});
