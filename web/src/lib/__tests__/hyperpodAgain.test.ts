import { describe, expect, it } from 'vitest';

import { failedHyperPodAsk, otherZones } from '../hyperpodAgain';
import type { OperationView } from '../types';

const groups = [{ instanceGroup: 'gpu', instanceType: 'ml.g5.8xlarge', instanceCount: 2 }];

function operation(kind: string, failedPhase: string, request: Record<string, unknown>): OperationView {
  return {
    id: 'op-1',
    kind,
    target: 'train',
    status: 'FAILED',
    request,
    phases: [
      { name: 'ComputeSubnet', title: 'subnet', status: 'SUCCEEDED' },
      { name: failedPhase, title: 'create', status: 'FAILED' },
    ],
  } as unknown as OperationView;
}

describe('a failed HyperPod creation asked for again', () => {
  it('takes the HyperPod part of a create-hyperpod or provision request', () => {
    const direct = operation('create-hyperpod', 'WaitInService', { name: 'train', availabilityZone: 'us-east-1a', instanceGroups: groups });
    expect(failedHyperPodAsk(direct)).toEqual({ availabilityZone: 'us-east-1a', instanceGroups: groups });
    const provision = operation('provision-cluster', 'WaitInService', {
      name: 'train',
      hyperpod: { availabilityZone: 'us-east-1a', instanceGroups: groups },
    });
    expect(failedHyperPodAsk(provision)?.availabilityZone).toBe('us-east-1a');
    expect(failedHyperPodAsk(operation('create-control-plane', 'Cluster', { name: 'train' }))).toBeNull();
  });

  it('offers the zones that have every type, not the one that failed', () => {
    const ask = { availabilityZone: 'us-east-1a', instanceGroups: groups };
    const offered = [
      { instanceType: 'ml.g5.8xlarge', availabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1c'] },
      { instanceType: 'ml.m5.2xlarge', availabilityZones: ['us-east-1d'] },
    ];
    expect(otherZones(ask, offered)).toEqual(['us-east-1b', 'us-east-1c']);
  });
});
