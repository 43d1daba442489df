// Task governance's choices for a workload form: the cluster's teams (a team's queue admits the workload
// within its share, in its namespace hyperpod-ns-<team>) and the priority classes of the cluster policy.

import { api } from './api';
import type { TeamView } from './types';
import { useFetch } from './useFetch';

/** The teams and the options of a Team and a Priority select; a team option's value is its name or its
 * queue, whichever the form sends. The first option of each is "none". */
export function useGovernanceChoices(cluster: string, teamValue: 'team' | 'queue') {
  const teams = useFetch(() => api.teams(cluster), [cluster]);
  const policy = useFetch(() => api.governancePolicy(cluster), [cluster]);
  const items: TeamView[] = teams.data?.items ?? [];
  const teamOptions = [
    { value: '', label: 'No team', description: 'namespace default, no queue' },
    ...items.map((t) => ({ value: t[teamValue], label: t.team, description: t.queue })),
  ];
  const priorityOptions = [
    { value: '', label: 'None (lowest)' },
    ...(policy.data?.workloadPriorityClasses ?? []).map((c) => ({ value: c, label: c })),
  ];
  return { teams: items, teamOptions, priorityOptions };
}
