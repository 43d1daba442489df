// How an instance type reads in a picker: what one node carries, from EC2's facts the catalog returns.

import type { InstanceTypeOfferingView } from './types';

function gib(value: number): string {
  return `${Number.isInteger(value) ? value : value.toFixed(1)} GiB`;
}

/** "8 × NVIDIA H100 (80 GiB) · 32 EFA · local NVMe · 192 vCPUs, 2048 GiB" */
export function describeInstanceType(item: InstanceTypeOfferingView): string {
  const parts: string[] = [];
  if (item.gpus) parts.push(`${item.gpus} × ${item.gpuModel ?? 'GPU'}${item.gpuMemoryGiB ? ` (${gib(item.gpuMemoryGiB)})` : ''}`);
  else if (item.neuronDevices) parts.push(`${item.neuronDevices} × ${item.neuronModel ?? 'Neuron device'}`);
  else parts.push('no accelerator');
  if (item.efaInterfaces) parts.push(`${item.efaInterfaces} EFA`);
  if (item.localNvme) parts.push('local NVMe');
  if (item.vCpu) parts.push(`${item.vCpu} vCPUs, ${gib(item.memoryInGiB)}`);
  return parts.join(' · ');
}

export function instanceTypeOption(item: InstanceTypeOfferingView) {
  return {
    value: item.instanceType,
    label: item.instanceType,
    description: describeInstanceType(item),
    tags: item.availabilityZones.length ? [`${item.availabilityZones.length} zone${item.availabilityZones.length > 1 ? 's' : ''}`] : undefined,
  };
}

/** Why EFA-only interfaces can or cannot go on the type (they need several EFA interfaces). */
export function efaOnlyNote(item: InstanceTypeOfferingView | undefined): string {
  if (!item) return 'Needs an instance type with several EFA interfaces, such as ml.p5.48xlarge (32).';
  if (item.efaInterfaces > 1) return `${item.instanceType} has ${item.efaInterfaces} EFA interfaces.`;
  return `${item.instanceType} has ${item.efaInterfaces || 'no'} EFA interface${item.efaInterfaces === 1 ? '' : 's'}; EFA-only needs several.`;
}

/** Natural order: by family, then by size (ml.g5.8xlarge before ml.g5.12xlarge, xlarge before 2xlarge). */
export function byInstanceType(a: { instanceType: string }, b: { instanceType: string }): number {
  const key = (t: string) => {
    const [, family = '', size = ''] = t.split('.');
    const match = /^(\d*)(.*)$/.exec(size) ?? ['', '', size];
    const order = ['nano', 'micro', 'small', 'medium', 'large', 'xlarge'];
    const scale = match[1] ? Number(match[1]) : 0;
    const unit = order.indexOf(match[2]);
    return { family, rank: unit === order.length - 1 ? order.length + scale : unit };
  };
  const ka = key(a.instanceType);
  const kb = key(b.instanceType);
  return ka.family === kb.family ? ka.rank - kb.rank : ka.family.localeCompare(kb.family);
}
