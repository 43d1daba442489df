import { describe, expect, it } from 'vitest';

import { byInstanceType, describeInstanceType, efaOnlyNote, instanceTypeOption } from '../instanceTypes';
import type { InstanceTypeOfferingView } from '../types';

const base: InstanceTypeOfferingView = {
  instanceType: 'ml.p5.48xlarge',
  availabilityZones: ['us-east-1a', 'us-east-1b'],
  vCpu: 192,
  memoryInGiB: 2048,
  gpus: 8,
  gpuModel: 'NVIDIA H100',
  gpuMemoryGiB: 80,
  neuronDevices: 0,
  neuronModel: null,
  efaInterfaces: 32,
  localNvme: true,
};

describe('instance type pickers', () => {
  it('say what one node carries', () => {
    expect(describeInstanceType(base)).toBe('8 × NVIDIA H100 (80 GiB) · 32 EFA · local NVMe · 192 vCPUs, 2048 GiB');
    const trn = { ...base, instanceType: 'ml.trn2.48xlarge', gpus: 0, gpuModel: null, neuronDevices: 16, neuronModel: 'Trainium2' };
    expect(describeInstanceType(trn)).toMatch(/^16 × Trainium2 · 32 EFA/);
    const cpu = { ...base, instanceType: 'ml.m5.2xlarge', gpus: 0, gpuModel: null, efaInterfaces: 0, localNvme: false, vCpu: 8, memoryInGiB: 32 };
    expect(describeInstanceType(cpu)).toBe('no accelerator · 8 vCPUs, 32 GiB');
    expect(instanceTypeOption(base).tags).toEqual(['2 zones']);
  });

  it('tell whether EFA-only interfaces fit the type', () => {
    expect(efaOnlyNote(base)).toBe('ml.p5.48xlarge has 32 EFA interfaces.');
    expect(efaOnlyNote({ ...base, instanceType: 'ml.g6e.12xlarge', efaInterfaces: 1 })).toBe(
      'ml.g6e.12xlarge has 1 EFA interface; EFA-only needs several.',
    );
  });

  it('sort naturally, by family then size', () => {
    const names = ['ml.g5.12xlarge', 'ml.g5.8xlarge', 'ml.c5.large', 'ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.p5.48xlarge'];
    const sorted = names.map((instanceType) => ({ instanceType })).sort(byInstanceType).map((t) => t.instanceType);
    expect(sorted).toEqual(['ml.c5.large', 'ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.8xlarge', 'ml.g5.12xlarge', 'ml.p5.48xlarge']);
  });
});
