// What the create-cluster wizard sends, the rules it checks before sending, and where a server error about
// it is shown. Two requests: CreateClusterRequest (the EKS control plane alone) and ProvisionClusterRequest
// (control plane, dependencies and HyperPod as one operation, optionally with storage).

import type { OpenApiDoc } from './api';
import { depthBody, depthErrors, needsContinuous, type DepthChoices, type DepthField } from './groupDepth';
import { accepts, arrayBounds, checkInteger, checkString } from './schema';

export const DEEP_HEALTH_CHECKS = ['InstanceStress', 'InstanceConnectivity'] as const;
export type DeepHealthCheck = (typeof DEEP_HEALTH_CHECKS)[number];

const GROUP_FIELDS = [
  'name',
  'instanceType',
  'instanceCount',
  'threadsPerCore',
  'ebsVolumeGb',
  'deepHealthChecks',
  'instanceTypes',
  'minInstanceCount',
  'autoPatch',
  'imageReleaseVersion',
] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];
const STORAGE_FIELDS = ['kind', 'storageName', 'namespace', 'prefix', 'fileSystemId'] as const;
export type StorageField = (typeof STORAGE_FIELDS)[number];

export type WizardField =
  | 'name'
  | 'region'
  | 'zone'
  | 'secondZone'
  | 'vpcCidr'
  | 'kubernetesVersion'
  | 'instanceGroups'
  | `instanceGroups.${number}.${GroupField}`
  | 'nodeRecovery'
  | 'continuous'
  | 'includeOptionalDependencies'
  | 'storage'
  | `storage.${StorageField}`;

export type FieldErrors = Partial<Record<WizardField, string>>;

export interface CreateClusterChoices {
  name: string;
  region?: string; // omitted: Launchpod's own Region
  zone: string;
  secondZone: string;
  kubernetesVersion: string;
  vpcCidr: string;
}

// The depth fields (fallback types, minimum, patching, image) are left out of a group that has none.
export interface InstanceGroupChoices extends Partial<DepthChoices> {
  name: string;
  instanceType: string;
  instanceCount: string; // as typed
  threadsPerCore: 1 | 2;
  ebsVolumeGb: string; // as typed
  deepHealthChecks: Record<DeepHealthCheck, boolean>;
}

export interface StorageChoices {
  kind: 's3' | 'fsx';
  storageName: string;
  namespace: string;
  prefix: string; // s3 only; '' = the whole bucket
  fileSystemId: string; // fsx only
}

export interface ProvisionChoices extends CreateClusterChoices {
  instanceGroups: InstanceGroupChoices[];
  nodeRecovery: boolean; // true = Automatic
  continuous?: boolean; // nodeProvisioningMode Continuous: flexible groups and minimums need it
  includeOptionalDependencies: boolean;
  storage: StorageChoices | null; // null = no storage
}

// The model the page checks each part against (names as in the API's OpenAPI document).
const MODELS = {
  hyperpod: 'CreateHyperPodRequest',
  group: 'InstanceGroupRequest',
  storage: 'ConfigureStorageRequest',
  provision: 'ProvisionClusterRequest',
};

/**
 * The CreateClusterRequest body. The request model forbids unknown fields, so nothing about HyperPod is
 * part of it; an untouched CIDR is left to the server default.
 */
export function createClusterBody(choices: CreateClusterChoices): Record<string, unknown> {
  return {
    cluster: choices.name,
    ...(choices.region ? { region: choices.region } : {}),
    availabilityZones: [choices.zone, choices.secondZone],
    ...(choices.kubernetesVersion ? { kubernetesVersion: choices.kubernetesVersion } : {}),
    ...(choices.vpcCidr ? { network: { vpcCidr: choices.vpcCidr } } : {}),
  };
}

export function instanceGroupBody(group: InstanceGroupChoices): Record<string, unknown> {
  const { instanceType, instanceTypes, ...depth } = depthBody(group.instanceType, group);
  return {
    instanceGroup: group.name,
    ...(instanceTypes ? { instanceTypes } : { instanceType }),
    instanceCount: Number(group.instanceCount),
    ...depth,
    threadsPerCore: group.threadsPerCore,
    ebsVolumeGb: Number(group.ebsVolumeGb),
    deepHealthChecks: DEEP_HEALTH_CHECKS.filter((check) => group.deepHealthChecks[check]),
  };
}

/** ConfigureStorageRequest: each kind gets only its own fields, because the server refuses the other kind's. */
export function storageBody(storage: StorageChoices): Record<string, unknown> {
  const common = { kind: storage.kind, storageName: storage.storageName, namespace: storage.namespace || 'default' };
  if (storage.kind === 'fsx') return { ...common, fileSystemId: storage.fileSystemId };
  return storage.prefix ? { ...common, prefix: storage.prefix } : common;
}

/**
 * The ProvisionClusterRequest body. HyperPod runs in the zone chosen for placement (the first control-plane
 * zone); node recovery is always sent, so the operation's recorded request says which it was.
 */
export function provisionClusterBody(choices: ProvisionChoices): Record<string, unknown> {
  return {
    ...createClusterBody(choices),
    hyperpod: {
      availabilityZone: choices.zone,
      instanceGroups: choices.instanceGroups.map(instanceGroupBody),
      nodeRecovery: choices.nodeRecovery ? 'Automatic' : 'None',
      ...(choices.continuous ? { nodeProvisioningMode: 'Continuous' } : {}),
    },
    includeOptionalDependencies: choices.includeOptionalDependencies,
    ...(choices.storage ? { storage: storageBody(choices.storage) } : {}),
  };
}

function compact(found: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value)) as FieldErrors;
}

/**
 * The instance groups' rules, as the contracts state them: names, counts and volume sizes, 1-20 groups with
 * distinct names, and a type offered in the zone (`offered` is what the catalog lists for it, null while
 * it loads).
 */
// Where a depth check's message shows: a group's drain timeout and batch size are parts of its autoPatch.
const DEPTH_AT: Record<DepthField, GroupField> = {
  fallbackTypes: 'instanceTypes',
  minInstanceCount: 'minInstanceCount',
  drainTimeoutSeconds: 'autoPatch',
  patchBatchSize: 'autoPatch',
  imageReleaseVersion: 'imageReleaseVersion',
};

export function checkInstanceGroups(
  doc: OpenApiDoc,
  groups: InstanceGroupChoices[],
  zone: string,
  offered: string[] | null,
  continuous = false,
): FieldErrors {
  const found: FieldErrors = {};
  const { min = 1, max = 20 } = arrayBounds(doc, MODELS.hyperpod, 'instanceGroups');
  if (groups.length < min || groups.length > max)
    found.instanceGroups = `Give from ${min} to ${max} instance groups (${groups.length} now).`;
  const seen = new Set<string>();
  groups.forEach((group, index) => {
    const at = (field: GroupField) => `instanceGroups.${index}.${field}` as const;
    found[at('name')] = group.name
      ? checkString(doc, MODELS.group, 'instanceGroup', group.name, '1-63 letters, digits and hyphens, starting and ending with a letter or digit.')
      : 'Enter a name for the instance group.';
    if (group.name && seen.has(group.name)) found[at('name')] = `Another instance group is named ${group.name}; names must be distinct.`;
    seen.add(group.name);
    if (!group.instanceType) found[at('instanceType')] = `Choose an instance type offered in ${zone || 'the zone'}.`;
    else if (offered && !offered.includes(group.instanceType))
      found[at('instanceType')] = `${group.instanceType} is not offered in ${zone}; choose another type.`;
    found[at('instanceCount')] = checkInteger(doc, MODELS.group, 'instanceCount', group.instanceCount);
    found[at('ebsVolumeGb')] = checkInteger(doc, MODELS.group, 'ebsVolumeGb', group.ebsVolumeGb);
    for (const [field, message] of Object.entries(depthErrors(group.instanceType, group.instanceCount, group)))
      found[at(DEPTH_AT[field as DepthField])] = [found[at(DEPTH_AT[field as DepthField])], message].filter(Boolean).join(' ');
    const missing = offered ? (group.fallbackTypes ?? []).filter((type) => !offered.includes(type)) : [];
    if (missing.length && !found[at('instanceTypes')])
      found[at('instanceTypes')] = `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not offered in ${zone}; leave ${missing.length === 1 ? 'it' : 'them'} out.`;
    if (!continuous && needsContinuous(group)) {
      const field = (group.fallbackTypes ?? []).length ? 'instanceTypes' : 'minInstanceCount';
      found[at(field)] ??= 'Fallback types and a minimum count need continuous provisioning: turn it on under Recovery and provisioning.';
    }
  });
  return compact(found);
}

/**
 * Storage's rules: Kubernetes names, an S3 prefix without "." or ".." segments, an FSx file system id for
 * kind fsx. FSx also needs the FSx CSI driver, which only the optional dependencies install.
 */
export function checkStorage(doc: OpenApiDoc, storage: StorageChoices, includeOptionalDependencies: boolean): FieldErrors {
  const found: FieldErrors = {};
  const k8sName = 'Lower-case letters, digits and hyphens, starting and ending with a letter or digit.';
  found['storage.storageName'] = storage.storageName
    ? checkString(doc, MODELS.storage, 'storageName', storage.storageName, k8sName)
    : 'Enter a name for the volume claim.';
  found['storage.namespace'] = checkString(doc, MODELS.storage, 'namespace', storage.namespace, k8sName);
  if (storage.kind === 's3' && storage.prefix) {
    // The document's pattern refuses "." and ".." segments too; this says so in words first.
    found['storage.prefix'] =
      (storage.prefix.split('/').some((part) => part === '.' || part === '..') ? 'The prefix must not contain "." or ".." segments.' : undefined) ??
      checkString(doc, MODELS.storage, 'prefix', storage.prefix, "A key prefix such as datasets/imagenet: letters, digits and !_.*'()=+- between slashes, no leading slash.");
  }
  if (storage.kind === 'fsx') {
    found['storage.fileSystemId'] = storage.fileSystemId
      ? checkString(doc, MODELS.storage, 'fileSystemId', storage.fileSystemId, 'An FSx file system id such as fs-0123456789abcdef0.')
      : 'Enter the id of an existing FSx for Lustre file system.';
    if (!includeOptionalDependencies)
      found['storage.kind'] =
        'FSx for Lustre is mounted by the FSx CSI driver, an optional dependency: turn on "Install optional dependencies" on the HyperPod step.';
  }
  return compact(found);
}

/** Whether this API takes storage in the provision request (an older one refuses the field). */
export function provisionAcceptsStorage(doc: OpenApiDoc): boolean {
  return accepts(doc, MODELS.provision, 'storage');
}

/** A 422 detail path without its "body." prefix -> the wizard field that shows it. */
export function wizardFieldOf(path: string): WizardField | undefined {
  if (path === 'cluster' || path === 'name') return 'name';
  if (path === 'region') return 'region';
  if (path === 'availabilityZones' || path === 'availabilityZones.0') return 'zone';
  if (path.startsWith('availabilityZones.')) return 'secondZone';
  if (path === 'network' || path.startsWith('network.')) return 'vpcCidr';
  if (path === 'kubernetesVersion') return 'kubernetesVersion';
  // HyperPod runs in the zone chosen for placement
  if (path === 'hyperpod.availabilityZone') return 'zone';
  if (path === 'hyperpod.nodeRecovery') return 'nodeRecovery';
  if (path === 'hyperpod.nodeProvisioningMode') return 'continuous';
  const group = /^hyperpod\.instanceGroups\.(\d+)\.([A-Za-z]+)/.exec(path);
  const groupField = group?.[2] === 'instanceGroup' ? 'name' : group?.[2]; // the request calls a group's name instanceGroup
  if (group && groupField && (GROUP_FIELDS as readonly string[]).includes(groupField))
    return `instanceGroups.${Number(group[1])}.${groupField as GroupField}`;
  // model-level rules (distinct names) and a group as a whole
  if (path === 'hyperpod' || path.startsWith('hyperpod.')) return 'instanceGroups';
  if (path === 'includeOptionalDependencies') return 'includeOptionalDependencies';
  const storage = /^storage\.([A-Za-z]+)/.exec(path);
  if (storage && (STORAGE_FIELDS as readonly string[]).includes(storage[1])) return `storage.${storage[1] as StorageField}`;
  if (path === 'storage' || path.startsWith('storage.')) return 'storage';
  return undefined;
}
