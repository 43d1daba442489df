// A task governance team as the PUT body says it: what the Features tab's team form sends. The API replaces
// the team's quota with it and answers NOOP when it equals the real quota.

import type { TeamRequest } from './types';

export type Sharing = TeamRequest['sharing'];
type Quota = TeamRequest['resources'][number];

/** What a team is given of an instance type: whole instances, or accelerators, vCPUs or memory (SageMaker
 * fills the rest by ratio). */
export type Unit = 'instanceCount' | 'accelerators' | 'vCpu' | 'memoryInGiB';
export const UNITS: { value: Unit; label: string }[] = [
  { value: 'instanceCount', label: 'Instances' },
  { value: 'accelerators', label: 'Accelerators (GPUs)' },
  { value: 'vCpu', label: 'vCPUs' },
  { value: 'memoryInGiB', label: 'Memory (GiB)' },
];

export interface TeamForm {
  team: string;
  instanceType: string;
  unit: Unit;
  count: string;
  sharing: Sharing;
  borrowLimit: string;
  fairShareWeight: string;
}

export const EMPTY_TEAM: TeamForm = {
  team: '',
  instanceType: '',
  unit: 'instanceCount',
  count: '1',
  sharing: 'LendAndBorrow',
  borrowLimit: '50',
  fairShareWeight: '0',
};

const TEAM_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** What is wrong with the form, in words, or null: the API checks the same and more (the cluster's counts). */
export function teamProblem(form: TeamForm): string | null {
  if (!TEAM_NAME.test(form.team) || form.team.length > 40) return 'Team: lowercase letters, digits and dashes, up to 40.';
  if (!form.instanceType) return 'Choose an instance type of the cluster.';
  const amount = Number(form.count);
  if (!(amount >= 0) || form.count === '') return 'Amount: a number, 0 or more.';
  if ((form.unit === 'instanceCount' || form.unit === 'accelerators') && !Number.isInteger(amount)) return 'Amount: a whole number.';
  return null;
}

/** The PUT body: borrowLimit only with LendAndBorrow (the API refuses it otherwise). */
export function teamBody(form: TeamForm): TeamRequest {
  const body: TeamRequest = {
    resources: [{ instanceType: form.instanceType, [form.unit]: Number(form.count) } as Quota],
    sharing: form.sharing,
    preemptTeamTasks: 'LowerPriority',
    fairShareWeight: Number(form.fairShareWeight || 0),
    enabled: true,
  };
  if (form.sharing === 'LendAndBorrow' && form.borrowLimit) body.borrowLimit = Number(form.borrowLimit);
  return body;
}

/** A quota in words: "4 accelerators of ml.p5.48xlarge", "2 x ml.p5.48xlarge". */
export function quotaText(r: Quota): string {
  const parts: string[] = [];
  if (r.instanceCount != null) parts.push(`${r.instanceCount} x`);
  if (r.accelerators != null) parts.push(`${r.accelerators} accelerators of`);
  if (r.vCpu != null) parts.push(`${r.vCpu} vCPUs of`);
  if (r.memoryInGiB != null) parts.push(`${r.memoryInGiB} GiB of`);
  if (r.acceleratorPartition) parts.push(`${r.acceleratorPartition.count} ${r.acceleratorPartition.type} of`);
  return `${parts.join(' ')} ${r.instanceType}`;
}
