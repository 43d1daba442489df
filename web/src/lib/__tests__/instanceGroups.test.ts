import { describe, expect, it } from 'vitest';

import { addGroupBody, addGroupErrors, EMPTY_ADD_GROUP } from '../instanceGroups';

describe('add instance group', () => {
  it('sends only what the user chose', () => {
    const body = addGroupBody({ ...EMPTY_ADD_GROUP, group: 'gpu', instanceType: 'ml.p5.48xlarge', capacityType: 'spot', efaOnly: true });
    expect(body).toEqual({ group: 'gpu', instanceType: 'ml.p5.48xlarge', instanceCount: 1, capacityType: 'spot', efaOnly: true });
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
});
