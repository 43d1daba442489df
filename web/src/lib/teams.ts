// A task governance team as the PUT body says it: what the Features tab's team form sends. The API replaces
// the team's quota with it and answers NOOP when it equals the real quota.

import type { TeamRequest } from './types';

export type Sharing = TeamRequest['sharing'];

export interface TeamForm {
  team: string;
  instanceType: string;
  count: string;
  sharing: Sharing;
  borrowLimit: string;
  fairShareWeight: string;
}

export const EMPTY_TEAM: TeamForm = {
  team: '',
  instanceType: '',
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
  if (!(Number(form.count) >= 0)) return 'Count: a whole number of instances.';
  return null;
}

/** The PUT body: borrowLimit only with LendAndBorrow (the API refuses it otherwise). */
export function teamBody(form: TeamForm): TeamRequest {
  const body: TeamRequest = {
    resources: [{ instanceType: form.instanceType, count: Number(form.count) }],
    sharing: form.sharing,
    preemptTeamTasks: 'LowerPriority',
    fairShareWeight: Number(form.fairShareWeight || 0),
    enabled: true,
  };
  if (form.sharing === 'LendAndBorrow' && form.borrowLimit) body.borrowLimit = Number(form.borrowLimit);
  return body;
}
