// What the create-cluster wizard sends, and where a server error about it is shown.

export type WizardField = 'name' | 'zone' | 'secondZone' | 'instanceType' | 'instanceCount' | 'vpcCidr' | 'kubernetesVersion';

export interface CreateClusterChoices {
  name: string;
  zone: string;
  secondZone: string;
  kubernetesVersion: string;
  vpcCidr: string;
}

/**
 * The CreateClusterRequest body. The request model forbids unknown fields, so the compute choices (applied
 * when the HyperPod cluster is created) are not part of it; an untouched CIDR is left to the server default.
 */
export function createClusterBody(choices: CreateClusterChoices): Record<string, unknown> {
  return {
    name: choices.name,
    availabilityZones: [choices.zone, choices.secondZone],
    kubernetesVersion: choices.kubernetesVersion,
    ...(choices.vpcCidr ? { network: { vpcCidr: choices.vpcCidr } } : {}),
  };
}

/** A 422 detail path without its "body." prefix -> the wizard field that shows it. */
export function wizardFieldOf(path: string): WizardField | undefined {
  if (path === 'name') return 'name';
  if (path === 'availabilityZones' || path === 'availabilityZones.0') return 'zone';
  if (path.startsWith('availabilityZones.')) return 'secondZone';
  if (path === 'network' || path.startsWith('network.')) return 'vpcCidr';
  if (path === 'kubernetesVersion') return 'kubernetesVersion';
  return undefined;
}
