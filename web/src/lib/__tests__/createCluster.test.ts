import { describe, expect, it } from 'vitest';

import type { OpenApiDoc } from '../api';
import { builtInDocument } from '../schema';

import {
  checkInstanceGroups,
  checkStorage,
  createClusterBody,
  provisionAcceptsStorage,
  provisionClusterBody,
  wizardFieldOf,
  type InstanceGroupChoices,
  type ProvisionChoices,
  type StorageChoices,
} from '../createCluster';

// The document built into the UI (src/api/openapi.json, generated from the contracts): what the UI uses when
// /api/openapi.json cannot be fetched.
const doc: OpenApiDoc = await builtInDocument();

const group = (overrides: Partial<InstanceGroupChoices> = {}): InstanceGroupChoices => ({
  name: 'workers',
  instanceType: 'ml.p5.48xlarge',
  instanceCount: '4',
  threadsPerCore: 1,
  ebsVolumeGb: '500',
  deepHealthChecks: { InstanceStress: false, InstanceConnectivity: false },
  ...overrides,
});

const storage = (overrides: Partial<StorageChoices> = {}): StorageChoices => ({
  kind: 's3',
  storageName: 'datasets',
  namespace: 'default',
  prefix: '',
  fileSystemId: '',
  ...overrides,
});

const provision = (overrides: Partial<ProvisionChoices> = {}): ProvisionChoices => ({
  name: 'ml-team-a',
  zone: 'us-east-1a',
  secondZone: 'us-east-1b',
  kubernetesVersion: '1.32',
  vpcCidr: '',
  instanceGroups: [group()],
  nodeRecovery: true,
  includeOptionalDependencies: false,
  storage: null,
  ...overrides,
});

describe('create-cluster request', () => {
  it('sends only what CreateClusterRequest accepts', () => {
    const body = createClusterBody({ name: 'a', zone: 'us-east-1a', secondZone: 'us-east-1b', kubernetesVersion: '1.32', vpcCidr: '' });
    expect(body).toEqual({ cluster: 'a', availabilityZones: ['us-east-1a', 'us-east-1b'], kubernetesVersion: '1.32' });
  });

  it('sends the Region only when one other than Launchpod\'s was chosen', () => {
    const body = createClusterBody({ name: 'a', region: 'us-west-2', zone: 'us-west-2a', secondZone: 'us-west-2b', kubernetesVersion: '', vpcCidr: '' });
    expect(body).toEqual({ cluster: 'a', region: 'us-west-2', availabilityZones: ['us-west-2a', 'us-west-2b'] });
    expect(wizardFieldOf('region')).toBe('region');
  });

  it('sends the CIDR only when one was given', () => {
    const body = createClusterBody({ name: 'a', zone: 'z1', secondZone: 'z2', kubernetesVersion: '1.32', vpcCidr: '10.1.0.0/16' });
    expect(body.network).toEqual({ vpcCidr: '10.1.0.0/16' });
  });
});

describe('provision-cluster request', () => {
  it('sends the control plane, HyperPod in the placement zone with automatic recovery, and the dependencies choice', () => {
    expect(provisionClusterBody(provision())).toEqual({
      cluster: 'ml-team-a',
      availabilityZones: ['us-east-1a', 'us-east-1b'],
      kubernetesVersion: '1.32',
      hyperpod: {
        availabilityZone: 'us-east-1a',
        instanceGroups: [
          { instanceGroup: 'workers', instanceType: 'ml.p5.48xlarge', instanceCount: 4, threadsPerCore: 1, ebsVolumeGb: 500, deepHealthChecks: [] },
        ],
        nodeRecovery: 'Automatic',
      },
      includeOptionalDependencies: false,
    });
  });

  it('sends every instance group with numbers as numbers and the deep health checks ticked, in contract order', () => {
    const body = provisionClusterBody(
      provision({
        vpcCidr: '10.1.0.0/16',
        includeOptionalDependencies: true,
        instanceGroups: [
          group({ deepHealthChecks: { InstanceStress: true, InstanceConnectivity: true } }),
          group({ name: 'cpu', instanceType: 'ml.m5.2xlarge', instanceCount: '0', threadsPerCore: 2, ebsVolumeGb: '100', deepHealthChecks: { InstanceStress: false, InstanceConnectivity: true } }),
        ],
      }),
    );
    const hyperpod = body.hyperpod as { instanceGroups: Record<string, unknown>[] };
    expect(hyperpod.instanceGroups[0].deepHealthChecks).toEqual(['InstanceStress', 'InstanceConnectivity']);
    expect(hyperpod.instanceGroups[1]).toEqual({
      instanceGroup: 'cpu',
      instanceType: 'ml.m5.2xlarge',
      instanceCount: 0,
      threadsPerCore: 2,
      ebsVolumeGb: 100,
      deepHealthChecks: ['InstanceConnectivity'],
    });
    expect(body.network).toEqual({ vpcCidr: '10.1.0.0/16' });
    expect(body.includeOptionalDependencies).toBe(true);
  });

  it('sends nodeProvisioningMode Continuous only when continuous provisioning is chosen', () => {
    const body = provisionClusterBody(provision({ continuous: true }));
    expect((body.hyperpod as Record<string, unknown>).nodeProvisioningMode).toBe('Continuous');
    expect(provisionClusterBody(provision()).hyperpod).not.toHaveProperty('nodeProvisioningMode');
    expect(wizardFieldOf('hyperpod.nodeProvisioningMode')).toBe('continuous');
  });

  it('sends nodeRecovery None when auto-recovery is turned off', () => {
    const body = provisionClusterBody(provision({ nodeRecovery: false }));
    expect((body.hyperpod as Record<string, unknown>).nodeRecovery).toBe('None');
  });

  it('leaves storage out unless it was asked for', () => {
    expect(provisionClusterBody(provision())).not.toHaveProperty('storage');
  });

  it('sends S3 storage with its prefix, and without a prefix for the whole bucket', () => {
    expect(provisionClusterBody(provision({ storage: storage({ prefix: 'datasets/imagenet', fileSystemId: 'fs-0123456789abcdef0' }) })).storage).toEqual({
      kind: 's3',
      storageName: 'datasets',
      namespace: 'default',
      prefix: 'datasets/imagenet',
    });
    expect(provisionClusterBody(provision({ storage: storage() })).storage).toEqual({ kind: 's3', storageName: 'datasets', namespace: 'default' });
  });

  it('sends FSx storage with its file system id and never an S3 prefix', () => {
    const body = provisionClusterBody(
      provision({ storage: storage({ kind: 'fsx', namespace: 'training', prefix: 'left/over', fileSystemId: 'fs-0123456789abcdef0' }) }),
    );
    expect(body.storage).toEqual({ kind: 'fsx', storageName: 'datasets', namespace: 'training', fileSystemId: 'fs-0123456789abcdef0' });
  });
});

describe('checks before sending', () => {
  it('accepts a valid instance group', () => {
    expect(checkInstanceGroups(doc, [group()], 'us-east-1a', ['ml.p5.48xlarge'])).toEqual({});
  });

  it('refuses bad names, duplicate names, counts and volume sizes out of range, on the field', () => {
    const found = checkInstanceGroups(
      doc,
      [group({ name: 'gpu_workers' }), group({ name: 'a', instanceCount: '6759', ebsVolumeGb: '0' }), group({ name: 'a', instanceCount: '-1' })],
      'us-east-1a',
      null,
    );
    expect(found['instanceGroups.0.name']).toMatch(/letters, digits and hyphens/);
    expect(found['instanceGroups.1.instanceCount']).toBe('Enter a whole number from 0 to 6758.');
    expect(found['instanceGroups.1.ebsVolumeGb']).toBe('Enter a whole number from 1 to 16384.');
    expect(found['instanceGroups.2.name']).toMatch(/names must be distinct/);
    expect(found['instanceGroups.2.instanceCount']).toBeTruthy();
    expect(found['instanceGroups.1.name']).toBeUndefined();
  });

  it('needs an instance type offered in the zone, and at least one group', () => {
    expect(checkInstanceGroups(doc, [group({ instanceType: '' })], 'us-east-1a', [])['instanceGroups.0.instanceType']).toMatch(/us-east-1a/);
    expect(checkInstanceGroups(doc, [group()], 'us-east-1e', ['ml.g5.8xlarge'])['instanceGroups.0.instanceType']).toMatch(/not offered in us-east-1e/);
    expect(checkInstanceGroups(doc, [], 'us-east-1a', null).instanceGroups).toMatch(/from 1 to 20/);
  });

  it('checks storage names, prefixes and file system ids', () => {
    expect(checkStorage(doc, storage({ prefix: 'datasets/imagenet/' }), false)).toEqual({});
    const s3 = checkStorage(doc, storage({ storageName: 'Data', namespace: 'ns_1', prefix: 'a/../b' }), false);
    expect(Object.keys(s3).sort()).toEqual(['storage.namespace', 'storage.prefix', 'storage.storageName']);
    expect(s3['storage.prefix']).toMatch(/"\." or "\.\."/);
    expect(checkStorage(doc, storage({ prefix: '/abs' }), false)['storage.prefix']).toMatch(/no leading slash/);
    expect(checkStorage(doc, storage({ kind: 'fsx' }), true)['storage.fileSystemId']).toMatch(/existing FSx/);
    expect(checkStorage(doc, storage({ kind: 'fsx', fileSystemId: 'fs-123' }), true)['storage.fileSystemId']).toMatch(/fs-0123456789abcdef0/);
  });

  it('asks for the optional dependencies when FSx is to be mounted', () => {
    const fsx = storage({ kind: 'fsx', fileSystemId: 'fs-0123456789abcdef0' });
    expect(checkStorage(doc, fsx, false)['storage.kind']).toMatch(/optional dependenc/);
    expect(checkStorage(doc, fsx, true)).toEqual({});
  });

  it('offers storage unless the API document says the provision request has no such field', () => {
    expect(provisionAcceptsStorage({})).toBe(true);
    const without = { components: { schemas: { ProvisionClusterRequest: { properties: { name: {}, hyperpod: {} } } } } };
    expect(provisionAcceptsStorage(without)).toBe(false);
    const withIt = { components: { schemas: { ProvisionClusterRequest: { properties: { name: {}, storage: {} } } } } };
    expect(provisionAcceptsStorage(withIt)).toBe(true);
  });
});

describe('server 422s land on the field', () => {
  it.each([
    ['cluster', 'name'],
    ['name', 'name'],
    ['availabilityZones', 'zone'],
    ['availabilityZones.0', 'zone'],
    ['availabilityZones.1', 'secondZone'],
    ['network', 'vpcCidr'],
    ['network.vpcCidr', 'vpcCidr'],
    ['kubernetesVersion', 'kubernetesVersion'],
    ['hyperpod.availabilityZone', 'zone'],
    ['hyperpod.instanceGroups.0.instanceType', 'instanceGroups.0.instanceType'],
    ['hyperpod.instanceGroups.1.instanceGroup', 'instanceGroups.1.name'],
    ['hyperpod.instanceGroups.2.deepHealthChecks.0', 'instanceGroups.2.deepHealthChecks'],
    ['hyperpod.instanceGroups.1.ebsVolumeGb', 'instanceGroups.1.ebsVolumeGb'],
    ['hyperpod.instanceGroups.1', 'instanceGroups'],
    ['hyperpod', 'instanceGroups'],
    ['hyperpod.nodeRecovery', 'nodeRecovery'],
    ['includeOptionalDependencies', 'includeOptionalDependencies'],
    ['storage.fileSystemId', 'storage.fileSystemId'],
    ['storage.prefix', 'storage.prefix'],
    ['storage', 'storage'],
    ['tags', undefined],
  ])('maps a 422 on %s to the %s field', (path, field) => {
    expect(wizardFieldOf(path)).toBe(field);
  });
});

describe('first groups with fallback types, a minimum, patching and an image', () => {
  const flexible = group({
    instanceType: 'ml.g5.8xlarge',
    fallbackTypes: ['ml.g5.12xlarge'],
    minInstanceCount: '2',
    patching: 'WhenIdle',
    imageReleaseVersion: '1.2.3',
  });
  const choices: ProvisionChoices = {
    name: 'train',
    zone: 'us-east-1a',
    secondZone: 'us-east-1b',
    kubernetesVersion: '',
    vpcCidr: '',
    instanceGroups: [flexible],
    nodeRecovery: true,
    continuous: true,
    includeOptionalDependencies: false,
    storage: null,
  };

  it('sends the types in order, the minimum, patching and image, with continuous provisioning', () => {
    const hyperpod = provisionClusterBody(choices).hyperpod as Record<string, unknown>;
    expect(hyperpod.nodeProvisioningMode).toBe('Continuous');
    const [sent] = hyperpod.instanceGroups as Record<string, unknown>[];
    expect(sent).not.toHaveProperty('instanceType');
    expect(sent).toMatchObject({
      instanceTypes: ['ml.g5.8xlarge', 'ml.g5.12xlarge'],
      instanceCount: 4,
      minInstanceCount: 2,
      autoPatch: { strategy: 'WhenIdle' },
      imageReleaseVersion: '1.2.3',
    });
    // a group with none of them sends none of them, and no provisioning mode is asked for
    const plain = provisionClusterBody({ ...choices, continuous: false, instanceGroups: [group()] }).hyperpod as Record<string, unknown>;
    expect(plain).not.toHaveProperty('nodeProvisioningMode');
    expect(Object.keys((plain.instanceGroups as object[])[0]).sort()).toEqual(
      ['deepHealthChecks', 'ebsVolumeGb', 'instanceCount', 'instanceGroup', 'instanceType', 'threadsPerCore'],
    );
  });

  it('asks for continuous provisioning, offered fallback types and a minimum within the count, on the field', () => {
    const offered = ['ml.g5.8xlarge', 'ml.g5.12xlarge'];
    expect(checkInstanceGroups(doc, [flexible], 'us-east-1a', offered, true)).toEqual({});
    expect(checkInstanceGroups(doc, [flexible], 'us-east-1a', offered, false)['instanceGroups.0.instanceTypes']).toMatch(/continuous provisioning/);
    expect(checkInstanceGroups(doc, [flexible], 'us-east-1a', ['ml.g5.8xlarge'], true)['instanceGroups.0.instanceTypes']).toMatch(
      /ml.g5.12xlarge is not offered in us-east-1a/,
    );
    const found = checkInstanceGroups(doc, [{ ...flexible, minInstanceCount: '5', patching: 'DrainFirst', drainTimeoutSeconds: '9000' }], 'us-east-1a', offered, true);
    expect(found['instanceGroups.0.minInstanceCount']).toMatch(/to the instance count/);
    expect(found['instanceGroups.0.autoPatch']).toMatch(/0 to 5400/);
  });

  it('shows the server refusal of fallback types or a minimum on the group field', () => {
    expect(wizardFieldOf('hyperpod.instanceGroups.0.instanceTypes')).toBe('instanceGroups.0.instanceTypes');
    expect(wizardFieldOf('hyperpod.instanceGroups.1.minInstanceCount')).toBe('instanceGroups.1.minInstanceCount');
  });
});
