// Each team's share of the cluster as a picture: what it uses within its quota, what it borrows beyond it, and
// the part of its quota left idle (lent to others while idle), in whole-instance equivalents so teams given
// GPUs, vCPUs, memory or GPU partitions compare on one axis.

import BarChart from '@cloudscape-design/components/bar-chart';
import Box from '@cloudscape-design/components/box';

import type { TeamView } from '../lib/types';

type Amounts = TeamView['guaranteed'];

const instances = (rows: Amounts | undefined) => (rows ?? []).reduce((sum, r) => sum + r.instanceCount, 0);
const round = (value: number) => Math.round(value * 100) / 100;

/** The three bars of one team: used within quota, borrowed, and idle quota (guaranteed, not used). */
export function shares(team: TeamView) {
  const guaranteed = instances(team.guaranteed);
  const used = instances(team.used);
  const borrowed = instances(team.borrowed);
  const within = Math.max(0, used - borrowed);
  return { guaranteed: round(guaranteed), within: round(within), borrowed: round(borrowed), idle: round(Math.max(0, guaranteed - within)) };
}

export default function TeamsUsage({ teams }: { teams: TeamView[] }) {
  if (!teams.length) return null;
  const rows = teams.map((t) => ({ team: t.team, ...shares(t) }));
  const top = Math.max(1, ...rows.map((r) => r.within + r.borrowed + r.idle));
  return (
    <BarChart
      ariaLabel="Quota, use and borrowing per team"
      stackedBars
      horizontalBars
      height={Math.max(120, rows.length * 48)}
      xScaleType="categorical"
      xTitle="Team"
      yTitle="Instances (equivalent)"
      yDomain={[0, Math.ceil(top)]}
      hideFilter
      series={[
        { title: 'Used within quota', type: 'bar', data: rows.map((r) => ({ x: r.team, y: r.within })) },
        { title: 'Borrowed', type: 'bar', data: rows.map((r) => ({ x: r.team, y: r.borrowed })) },
        { title: 'Quota not in use (lendable)', type: 'bar', data: rows.map((r) => ({ x: r.team, y: r.idle })) },
      ]}
      empty={<Box textAlign="center">No team uses or holds compute yet.</Box>}
      // whole instances only: a tick at 0.05 of an instance says nothing
      i18nStrings={{ xTickFormatter: (x) => String(x), yTickFormatter: (y) => (Number.isInteger(y) ? `${y}` : '') }}
    />
  );
}
