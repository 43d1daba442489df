// What a group takes beyond its type and count, wherever a group is specified (a new cluster's first groups,
// a group added later): fallback instance types (a flexible group), a minimum count, automatic patching and
// the image release. One body and one set of checks for both forms, as the API shares one set of rules.

export type PatchingChoice = '' | 'WhenIdle' | 'WhenAllIdle' | 'DrainFirst';

export interface DepthChoices {
  fallbackTypes: string[]; // a flexible group: tried after the first type, in this order
  minInstanceCount: string; // as typed; '' = none
  patching: PatchingChoice;
  drainTimeoutSeconds: string;
  onDrainTimeout: 'Skip' | 'Force';
  patchBatchSize: string;
  imageReleaseVersion: string;
}

export const EMPTY_DEPTH: DepthChoices = {
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

/** The autoPatch the choices ask for, or undefined for none. */
export function autoPatchBody(depth: DepthChoices): Record<string, unknown> | undefined {
  if (depth.patching === 'DrainFirst')
    return {
      strategy: 'DrainFirst',
      drain: { drainTimeoutSeconds: Number(depth.drainTimeoutSeconds), onDrainTimeout: depth.onDrainTimeout },
      maxBatchSize: { type: 'INSTANCE_COUNT', value: Number(depth.patchBatchSize) },
    };
  return depth.patching ? { strategy: depth.patching } : undefined;
}

/**
 * The group's type fields and depth fields, only what the user chose: `instanceTypes` in order for a flexible
 * group (never on a training plan, which reserves one type), else `instanceType`.
 */
export function depthBody(instanceType: string, choices: Partial<DepthChoices>, onPlan = false): Record<string, unknown> {
  const depth = { ...EMPTY_DEPTH, ...choices };
  const flexible = depth.fallbackTypes.length > 0 && !onPlan;
  const body: Record<string, unknown> = flexible ? { instanceTypes: [instanceType, ...depth.fallbackTypes] } : { instanceType };
  if (depth.minInstanceCount.trim()) body.minInstanceCount = Number(depth.minInstanceCount);
  const patch = autoPatchBody(depth);
  if (patch) body.autoPatch = patch;
  if (depth.imageReleaseVersion.trim()) body.imageReleaseVersion = depth.imageReleaseVersion.trim();
  return body;
}

/** Whether the choices need continuous provisioning (flexible types or a minimum, as HyperPod requires). */
export function needsContinuous(choices: Partial<DepthChoices>): boolean {
  return (choices.fallbackTypes ?? []).length > 0 || !!choices.minInstanceCount?.trim();
}

export type DepthField = 'fallbackTypes' | 'minInstanceCount' | 'drainTimeoutSeconds' | 'patchBatchSize' | 'imageReleaseVersion';

/** Field -> message for what can be told before sending (the server checks the rest: zones, quotas). */
export function depthErrors(instanceType: string, count: string, choices: Partial<DepthChoices>, onPlan = false): Partial<Record<DepthField, string>> {
  const depth = { ...EMPTY_DEPTH, ...choices };
  const errors: Partial<Record<DepthField, string>> = {};
  if (instanceType && depth.fallbackTypes.includes(instanceType)) errors.fallbackTypes = `${instanceType} is already the first choice.`;
  else if (depth.fallbackTypes.length > 19) errors.fallbackTypes = 'At most 20 types in all.';
  else if (depth.fallbackTypes.length && onPlan) errors.fallbackTypes = 'A training plan reserves one type.';
  const low = depth.minInstanceCount.trim();
  if (low && (!/^\d+$/.test(low) || Number(low) > Number(count))) errors.minInstanceCount = 'A whole number from 0 to the instance count.';
  if (depth.patching === 'DrainFirst') {
    if (!/^\d+$/.test(depth.drainTimeoutSeconds) || Number(depth.drainTimeoutSeconds) > 5400) errors.drainTimeoutSeconds = 'Seconds from 0 to 5400.';
    if (!/^\d+$/.test(depth.patchBatchSize) || Number(depth.patchBatchSize) < 1 || Number(depth.patchBatchSize) > 100)
      errors.patchBatchSize = 'Nodes at once: 1 to 100.';
  }
  if (depth.imageReleaseVersion.trim() && !/^\d+\.\d+\.\d+$/.test(depth.imageReleaseVersion.trim()))
    errors.imageReleaseVersion = 'A release version such as 1.2.3.';
  return errors;
}
