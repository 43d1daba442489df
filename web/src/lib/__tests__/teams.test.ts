import { describe, expect, it } from 'vitest';

import { EMPTY_TEAM, teamBody, teamProblem } from '../teams';

describe('a team as the PUT body says it', () => {
  const form = { ...EMPTY_TEAM, team: 'research', instanceType: 'ml.p5.48xlarge', count: '2', borrowLimit: '80' };

  it('sends the counts, the sharing and the borrow limit of LendAndBorrow', () => {
    expect(teamBody(form)).toEqual({
      resources: [{ instanceType: 'ml.p5.48xlarge', instanceCount: 2 }],
      sharing: 'LendAndBorrow',
      borrowLimit: 80,
      preemptTeamTasks: 'LowerPriority',
      fairShareWeight: 0,
      enabled: true,
    });
  });

  it('sends no borrow limit for a team that does not borrow (the API refuses one)', () => {
    expect(teamBody({ ...form, sharing: 'DontLend' })).not.toHaveProperty('borrowLimit');
  });

  it('names what is wrong before anything is sent', () => {
    expect(teamProblem(form)).toBeNull();
    expect(teamProblem({ ...form, team: 'Research_Team' })).toMatch(/lowercase/);
    expect(teamProblem({ ...form, instanceType: '' })).toMatch(/instance type/);
  });
});
