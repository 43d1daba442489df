import { describe, expect, it } from 'vitest';

import { addGroupBody, addGroupErrors, EMPTY_ADD_GROUP } from '../instanceGroups';
import { migChoiceOf, migChoices, migLayout } from '../mig';

const H100 = { gpus: 8, migProfiles: { 'mig-1g.10gb': 7, 'mig-3g.40gb': 2 }, migMixes: [{ 'mig-1g.10gb': 3, 'mig-4g.40gb': 1 }] };

describe('GPU partitions of an instance group', () => {
  it('offers whole GPUs, each profile and each mix the type takes, and nothing for a type without MIG', () => {
    const choices = migChoices(H100);
    expect(choices.map((c) => c.label)).toEqual([
      'Whole GPUs',
      'Every GPU as mig-1g.10gb',
      'Every GPU as mig-3g.40gb',
      'Mix: 3 × mig-1g.10gb + 1 × mig-4g.40gb',
    ]);
    expect(choices[1].description).toBe('7 per GPU, 56 per node');
    expect(migChoices({ gpus: 4, migProfiles: {}, migMixes: [] })).toEqual([]);
    expect(migChoices(H100, true)[0].value).toBe('disabled'); // a partitioned group turns MIG off explicitly
  });

  it('sends the layout the choice names, and reads a group back to its choice', () => {
    expect(migLayout('single:mig-1g.10gb')).toEqual({ mode: 'single', acceleratorPartitionType: 'mig-1g.10gb' });
    expect(migLayout('mixed:mig-1g.10gb=3,mig-4g.40gb=1')).toEqual({ mode: 'mixed', perGpu: { 'mig-1g.10gb': 3, 'mig-4g.40gb': 1 } });
    expect(migLayout('disabled')).toEqual({ mode: 'disabled' });
    expect(migLayout('')).toBeUndefined();
    const mixed = { config: 'mixed-3-1g.10gb-1-4g.40gb', mode: 'mixed' as const, perGpu: { 'mig-4g.40gb': 1, 'mig-1g.10gb': 3 } };
    expect(migChoiceOf(mixed)).toBe(migChoices(H100)[3].value);
    expect(migChoiceOf({ config: 'all-1g.10gb', mode: 'single', perGpu: { 'mig-1g.10gb': 7 } })).toBe('single:mig-1g.10gb');
    expect(migChoiceOf(null)).toBe('');
  });

  it('adds a group with its layout, and refuses one with fallback types', () => {
    const form = { ...EMPTY_ADD_GROUP, group: 'mig', instanceType: 'ml.p5.48xlarge', mig: 'single:mig-1g.10gb' };
    expect(addGroupBody(form).mig).toEqual({ mode: 'single', acceleratorPartitionType: 'mig-1g.10gb' });
    expect(addGroupBody({ ...form, mig: '' })).not.toHaveProperty('mig');
    expect(addGroupErrors({ ...form, fallbackTypes: ['ml.p5e.48xlarge'] }, []).mig).toMatch(/one instance type/);
  });
});
