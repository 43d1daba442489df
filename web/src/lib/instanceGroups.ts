// The add-instance-group wizard's state and the request body it sends (only what the user chose).

import { EMPTY_DEPTH, PATCHING, autoPatchBody, depthBody, depthErrors, type DepthChoices, type PatchingChoice } from './groupDepth';
import { migLayout } from './mig';
import type { CapacityType, InstanceGroupView } from './types';

export type { PatchingChoice } from './groupDepth';
export { PATCHING } from './groupDepth';

export interface AddGroupForm extends DepthChoices {
  group: string;
  instanceType: string;
  instanceCount: string;
  capacityType: CapacityType;
  trainingPlanArn: string;
  efaOnly: boolean;
  availabilityZone: string;
  dedicatedSubnet: boolean;
  mig: string; // a lib/mig choice: '' for whole GPUs
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
  mig: '',
  ...EMPTY_DEPTH,
};

const GROUP_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9])*$/;

export function addGroupBody(form: AddGroupForm): Record<string, unknown> {
  const onPlan = form.capacityType === 'trainingPlan';
  const { instanceType, instanceTypes, ...depth } = depthBody(form.instanceType, form, onPlan);
  const body: Record<string, unknown> = {
    instanceGroup: form.group.trim(),
    ...(instanceTypes ? { instanceTypes } : { instanceType }),
    instanceCount: Number(form.instanceCount),
    capacityType: form.capacityType,
    ...depth,
  };
  if (onPlan) body.trainingPlanArn = form.trainingPlanArn.trim();
  if (form.efaOnly) body.efaOnly = true;
  if (form.availabilityZone) body.availabilityZone = form.availabilityZone;
  if (form.dedicatedSubnet) body.dedicatedSubnet = true;
  if (form.mig) body.mig = migLayout(form.mig);
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
  Object.assign(errors, depthErrors(form.instanceType, form.instanceCount, form, form.capacityType === 'trainingPlan'));
  // AWS: "GPU partitioning with MIG is not supported with flexible instance groups"
  if (form.mig && form.fallbackTypes.length) errors.mig = 'GPU partitions need one instance type: remove the fallback types.';
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

// --- editing a group: its minimum, automatic patching and image (PATCH .../instance-groups/{group}) ---

/** The group's minimum, patching and image as the edit form shows them. */
export function depthOf(group: InstanceGroupView): DepthChoices {
  const patch = group.autoPatch;
  const size = patch?.maxBatchSize;
  return {
    ...EMPTY_DEPTH,
    minInstanceCount: group.minInstanceCount == null ? '' : String(group.minInstanceCount),
    patching: (patch?.strategy as PatchingChoice | undefined) ?? '',
    drainTimeoutSeconds: String(patch?.drainTimeoutSeconds ?? EMPTY_DEPTH.drainTimeoutSeconds),
    onDrainTimeout: patch?.onDrainTimeout === 'Force' ? 'Force' : 'Skip',
    patchBatchSize: size?.type === 'INSTANCE_COUNT' ? String(size.value) : EMPTY_DEPTH.patchBatchSize,
    imageReleaseVersion: group.imageReleaseVersion ?? '',
  };
}

const PATCH_FIELDS = ['patching', 'drainTimeoutSeconds', 'onDrainTimeout', 'patchBatchSize'] as const;

/** The explicit diff: only what the user changed (the API compares it with the group and plans the rest). */
export function editGroupBody(before: DepthChoices, after: DepthChoices): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (after.minInstanceCount.trim() !== before.minInstanceCount.trim() && after.minInstanceCount.trim())
    body.minInstanceCount = Number(after.minInstanceCount);
  if (PATCH_FIELDS.some((field) => after[field] !== before[field])) {
    const patch = autoPatchBody(after);
    if (patch) body.autoPatch = patch;
  }
  if (after.imageReleaseVersion.trim() && after.imageReleaseVersion.trim() !== before.imageReleaseVersion.trim())
    body.imageReleaseVersion = after.imageReleaseVersion.trim();
  return body;
}

/** What the edit cannot send: the checks of a new group, and what the API has no way to undo. */
export function editGroupErrors(before: DepthChoices, after: DepthChoices, targetCount: number): Record<string, string> {
  const errors: Record<string, string> = { ...depthErrors('', String(targetCount), after) };
  if (before.minInstanceCount.trim() && !after.minInstanceCount.trim()) errors.minInstanceCount = 'Give a minimum: 0 for none.';
  if (before.patching && !after.patching) errors.patching = 'Automatic patching stays on once set; choose the strategy it follows.';
  if (before.imageReleaseVersion.trim() && !after.imageReleaseVersion.trim())
    errors.imageReleaseVersion = 'Give the release the nodes should run.';
  return errors;
}
