// The add-instance-group wizard's state and the request body it sends (only what the user chose).

import type { CapacityType, InstanceGroupView } from './types';

export type PatchingChoice = '' | 'WhenIdle' | 'WhenAllIdle' | 'DrainFirst';

export interface AddGroupForm {
  group: string;
  instanceType: string;
  instanceCount: string;
  capacityType: CapacityType;
  trainingPlanArn: string;
  efaOnly: boolean;
  availabilityZone: string;
  dedicatedSubnet: boolean;
  fallbackTypes: string[]; // a flexible group: tried after instanceType, in this order
  minInstanceCount: string;
  patching: PatchingChoice;
  drainTimeoutSeconds: string;
  onDrainTimeout: 'Skip' | 'Force';
  patchBatchSize: string;
  imageReleaseVersion: string;
}

export const EMPTY_ADD_GROUP: AddGroupForm = {
  group: '',
  instanceType: '',
  instanceCount: '1',
  capacityType: 'onDemand',
  trainingPlanArn: '',
  efaOnly: false,
  availabilityZone: '',
  dedicatedSubnet: false,
  fallbackTypes: [],
  minInstanceCount: '',
  patching: '',
  drainTimeoutSeconds: '3600',
  onDrainTimeout: 'Skip',
  patchBatchSize: '1',
  imageReleaseVersion: '',
};

// ClusterAutoPatchConfig's strategies, worded for the form: the first two never stop a running job.
export const PATCHING: Record<Exclude<PatchingChoice, ''>, { label: string; description: string }> = {
  WhenIdle: { label: 'When idle', description: 'Patch each node once it runs no job; a busy node stays on its image.' },
  WhenAllIdle: { label: 'When all are idle', description: 'Patch only when every node of the group is idle.' },
  DrainFirst: { label: 'Drain first', description: 'Evict the pods, then patch in batches: for inference groups that are never idle.' },
};

const GROUP_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9])*$/;

export function addGroupBody(form: AddGroupForm): Record<string, unknown> {
  const flexible = form.fallbackTypes.length > 0 && form.capacityType !== 'trainingPlan';
  const body: Record<string, unknown> = {
    instanceGroup: form.group.trim(),
    ...(flexible ? { instanceTypes: [form.instanceType, ...form.fallbackTypes] } : { instanceType: form.instanceType }),
    instanceCount: Number(form.instanceCount),
    capacityType: form.capacityType,
  };
  if (form.minInstanceCount.trim()) body.minInstanceCount = Number(form.minInstanceCount);
  if (form.patching === 'DrainFirst')
    body.autoPatch = {
      strategy: 'DrainFirst',
      drain: { drainTimeoutSeconds: Number(form.drainTimeoutSeconds), onDrainTimeout: form.onDrainTimeout },
      maxBatchSize: { type: 'INSTANCE_COUNT', value: Number(form.patchBatchSize) },
    };
  else if (form.patching) body.autoPatch = { strategy: form.patching };
  if (form.imageReleaseVersion.trim()) body.imageReleaseVersion = form.imageReleaseVersion.trim();
  if (form.capacityType === 'trainingPlan') body.trainingPlanArn = form.trainingPlanArn.trim();
  if (form.efaOnly) body.efaOnly = true;
  if (form.availabilityZone) body.availabilityZone = form.availabilityZone;
  if (form.dedicatedSubnet) body.dedicatedSubnet = true;
  return body;
}

// Field -> message for what can be told before sending; the server checks the rest (zone, quota, plan).
export function addGroupErrors(form: AddGroupForm, existing: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const name = form.group.trim();
  if (!name) errors.group = 'Give the group a name.';
  else if (name.length > 63 || !GROUP_NAME.test(name)) errors.group = 'Letters, digits and hyphens; at most 63.';
  else if (existing.includes(name)) errors.group = `${name} already exists; scale it instead.`;
  if (!form.instanceType) errors.instanceType = 'Choose an instance type.';
  const count = Number(form.instanceCount);
  if (!/^\d+$/.test(form.instanceCount) || count > 6758) errors.instanceCount = 'A whole number from 0 to 6758.';
  if (form.capacityType === 'trainingPlan' && !form.trainingPlanArn.trim())
    errors.trainingPlanArn = 'Give the training plan ARN.';
  if (form.fallbackTypes.includes(form.instanceType)) errors.fallbackTypes = `${form.instanceType} is already the first choice.`;
  else if (form.fallbackTypes.length > 19) errors.fallbackTypes = 'At most 20 types in all.';
  else if (form.fallbackTypes.length && form.capacityType === 'trainingPlan') errors.fallbackTypes = 'A training plan reserves one type.';
  const low = form.minInstanceCount.trim();
  if (low && (!/^\d+$/.test(low) || Number(low) > count)) errors.minInstanceCount = 'A whole number from 0 to the instance count.';
  if (form.patching === 'DrainFirst') {
    const timeout = Number(form.drainTimeoutSeconds);
    if (!/^\d+$/.test(form.drainTimeoutSeconds) || timeout > 5400) errors.drainTimeoutSeconds = 'Seconds from 0 to 5400.';
    if (!/^\d+$/.test(form.patchBatchSize) || Number(form.patchBatchSize) < 1 || Number(form.patchBatchSize) > 100)
      errors.patchBatchSize = 'Nodes at once: 1 to 100.';
  }
  if (form.imageReleaseVersion.trim() && !/^\d+\.\d+\.\d+$/.test(form.imageReleaseVersion.trim()))
    errors.imageReleaseVersion = 'A release version such as 1.2.3.';
  return errors;
}

// One entry per capacity type the API defines (CapacityType comes from its OpenAPI document), so a new
// type in the contract fails the typecheck until it is labelled here.
export const CAPACITY_TYPES: Record<CapacityType, { label: string; description?: string }> = {
  onDemand: { label: 'On-Demand' },
  spot: { label: 'Spot', description: 'Cheaper; AWS can reclaim the instances, and a zone can run short.' },
  trainingPlan: { label: 'Training plan', description: "Reserved capacity; the plan's zone wins." },
};

export function capacityLabel(capacity: CapacityType): string {
  return CAPACITY_TYPES[capacity].label;
}

// The group's types as the table shows them: a flexible group's in order, each with the instances it runs.
export function typesLabel(group: InstanceGroupView): string {
  const types = group.instanceTypes ?? [];
  if (!types.length) return group.instanceType ?? '-';
  return types.map((t) => `${t} (${group.typeCounts?.[t] ?? 0})`).join(', then ');
}

// The group's patching strategy and, when HyperPod has one, the next patch time (UTC, to the minute).
export function patchLabel(group: InstanceGroupView): { strategy: string; next: string | null } {
  const patch = group.autoPatch;
  if (!patch) return { strategy: 'Off', next: null };
  const strategy = PATCHING[patch.strategy as Exclude<PatchingChoice, ''>]?.label ?? patch.strategy;
  return { strategy, next: patch.nextPatchDate ? `${patch.nextPatchDate.slice(0, 16).replace('T', ' ')} UTC` : null };
}
