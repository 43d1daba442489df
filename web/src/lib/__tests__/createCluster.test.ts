import { describe, expect, it } from 'vitest';

import { createClusterBody, wizardFieldOf } from '../createCluster';

describe('create-cluster request', () => {
  it('sends only what CreateClusterRequest accepts', () => {
    const body = createClusterBody({ name: 'a', zone: 'us-east-1a', secondZone: 'us-east-1b', kubernetesVersion: '1.32', vpcCidr: '' });
    expect(body).toEqual({ name: 'a', availabilityZones: ['us-east-1a', 'us-east-1b'], kubernetesVersion: '1.32' });
  });

  it('sends the CIDR only when one was given', () => {
    const body = createClusterBody({ name: 'a', zone: 'z1', secondZone: 'z2', kubernetesVersion: '1.32', vpcCidr: '10.1.0.0/16' });
    expect(body.network).toEqual({ vpcCidr: '10.1.0.0/16' });
  });

  it.each([
    ['name', 'name'],
    ['availabilityZones', 'zone'],
    ['availabilityZones.0', 'zone'],
    ['availabilityZones.1', 'secondZone'],
    ['network', 'vpcCidr'],
    ['network.vpcCidr', 'vpcCidr'],
    ['kubernetesVersion', 'kubernetesVersion'],
    ['tags', undefined],
  ])('maps a 422 on %s to the %s field', (path, field) => {
    expect(wizardFieldOf(path)).toBe(field);
  });
});
