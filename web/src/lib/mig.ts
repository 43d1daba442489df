// A group's GPU partitions (MIG) as the instance-group forms offer them: the choices the instance type's GPU
// takes (the catalog's migProfiles and migMixes, from AWS's list and HyperPod's default-mig-config), encoded
// as one select value, and the request's mig field of a choice.

import type { InstanceGroupView, InstanceTypeOfferingView } from './types';

type MigView = NonNullable<InstanceGroupView['mig']>;
export interface MigChoice {
  value: string; // '' none (whole GPUs, no label), 'disabled', 'single:<profile>', 'mixed:<profile>=<n>,...'
  label: string;
  description?: string;
}

const mixKey = (perGpu: Record<string, number>) =>
  Object.entries(perGpu)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, n]) => `${p}=${n}`)
    .join(',');
const mixLabel = (perGpu: Record<string, number>) =>
  Object.entries(perGpu)
    .map(([p, n]) => `${n} × ${p}`)
    .join(' + ');

/** The layouts the type's GPUs take; empty when HyperPod does not partition them. */
export function migChoices(type: Pick<InstanceTypeOfferingView, 'migProfiles' | 'migMixes' | 'gpus'> | undefined, keepWhole = false): MigChoice[] {
  const profiles = Object.entries(type?.migProfiles ?? {});
  if (!profiles.length) return [];
  const gpus = type?.gpus ?? 0;
  const perNode = (n: number) => (gpus ? `, ${n * gpus} per node` : '');
  return [
    keepWhole
      ? { value: 'disabled', label: 'Whole GPUs', description: 'MIG off (all-disabled)' }
      : { value: '', label: 'Whole GPUs', description: 'No partitions' },
    ...profiles.map(([profile, n]) => ({
      value: `single:${profile}`,
      label: `Every GPU as ${profile}`,
      description: `${n} per GPU${perNode(n)}`,
    })),
    ...(type?.migMixes ?? []).map((mix) => ({ value: `mixed:${mixKey(mix)}`, label: `Mix: ${mixLabel(mix)}`, description: 'on every GPU' })),
  ];
}

/** The request's mig of a choice (undefined for none). */
export function migLayout(choice: string): Record<string, unknown> | undefined {
  if (!choice) return undefined;
  if (choice === 'disabled') return { mode: 'disabled' };
  if (choice.startsWith('single:')) return { mode: 'single', acceleratorPartitionType: choice.slice('single:'.length) };
  const perGpu = Object.fromEntries(
    choice
      .slice('mixed:'.length)
      .split(',')
      .map((part) => part.split('='))
      .map(([p, n]) => [p, Number(n)]),
  );
  return { mode: 'mixed', perGpu };
}

/** The choice a group's current layout is ('' when it has no MIG label). */
export function migChoiceOf(mig: MigView | null | undefined): string {
  if (!mig) return '';
  if (mig.mode === 'disabled') return 'disabled';
  const entries = Object.entries(mig.perGpu ?? {});
  if (mig.mode === 'single' && entries.length === 1) return `single:${entries[0][0]}`;
  return `mixed:${mixKey(mig.perGpu ?? {})}`;
}
