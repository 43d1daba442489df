import { describe, expect, it } from 'vitest';

import { addGroupBody, addGroupErrors, EMPTY_ADD_GROUP } from '../instanceGroups';

describe('add instance group', () => {
  it('sends only what the user chose', () => {
    const body = addGroupBody({ ...EMPTY_ADD_GROUP, group: 'gpu', instanceType: 'ml.p5.48xlarge', capacityType: 'spot', efaOnly: true });
    expect(body).toEqual({ instanceGroup: 'gpu', instanceType: 'ml.p5.48xlarge', instanceCount: 1, capacityType: 'spot', efaOnly: true });
  });

  it('sends the training plan only with that capacity type', () => {
    const form = { ...EMPTY_ADD_GROUP, group: 'g', instanceType: 't', trainingPlanArn: 'arn:x' };
    expect(addGroupBody(form)).not.toHaveProperty('trainingPlanArn');
    expect(addGroupBody({ ...form, capacityType: 'trainingPlan' })).toMatchObject({ trainingPlanArn: 'arn:x' });
  });

  it('names the fields that cannot be sent as they are', () => {
    const errors = addGroupErrors({ ...EMPTY_ADD_GROUP, group: 'gpu', instanceCount: '-1', capacityType: 'trainingPlan' }, ['gpu']);
    expect(Object.keys(errors).sort()).toEqual(['group', 'instanceCount', 'instanceType', 'trainingPlanArn']);
    expect(errors.group).toContain('already exists');
  });

  it('sends a flexible group as its types in order, with its minimum, patching and release', () => {
    const form = {
      ...EMPTY_ADD_GROUP,
      group: 'flex',
      instanceType: 'ml.g5.8xlarge',
      fallbackTypes: ['ml.g5.12xlarge'],
      instanceCount: '2',
      minInstanceCount: '1',
      patching: 'DrainFirst' as const,
      drainTimeoutSeconds: '600',
      imageReleaseVersion: '1.2.3',
    };
    expect(addGroupBody(form)).toEqual({
      instanceGroup: 'flex',
      instanceTypes: ['ml.g5.8xlarge', 'ml.g5.12xlarge'],
      instanceCount: 2,
      capacityType: 'onDemand',
      minInstanceCount: 1,
      autoPatch: {
        strategy: 'DrainFirst',
        drain: { drainTimeoutSeconds: 600, onDrainTimeout: 'Skip' },
        maxBatchSize: { type: 'INSTANCE_COUNT', value: 1 },
      },
      imageReleaseVersion: '1.2.3',
    });
    expect(addGroupBody({ ...form, patching: 'WhenIdle' }).autoPatch).toEqual({ strategy: 'WhenIdle' });
  });

  it('refuses a minimum above the count, a repeated type and a drain past 90 minutes', () => {
    const errors = addGroupErrors(
      { ...EMPTY_ADD_GROUP, group: 'g', instanceType: 't', fallbackTypes: ['t'], minInstanceCount: '3', patching: 'DrainFirst', drainTimeoutSeconds: '6000', imageReleaseVersion: 'new' },
      [],
    );
    expect(Object.keys(errors).sort()).toEqual(['drainTimeoutSeconds', 'fallbackTypes', 'imageReleaseVersion', 'minInstanceCount']);
  });
});
