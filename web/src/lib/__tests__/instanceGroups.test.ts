import { describe, expect, it } from 'vitest';

import { addGroupBody, addGroupErrors, depthOf, editGroupBody, editGroupErrors, EMPTY_ADD_GROUP } from '../instanceGroups';
import type { InstanceGroupView } from '../types';

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

describe('edit instance group', () => {
  const view = {
    instanceGroup: 'flex',
    targetCount: 4,
    minInstanceCount: 1,
    autoPatch: { strategy: 'WhenIdle', nextPatchDate: '2026-12-12T03:00:00Z' },
    imageReleaseVersion: '1.2.3',
  } as unknown as InstanceGroupView;

  it('starts from the group as it is and sends only what changed', () => {
    const before = depthOf(view);
    expect(before).toMatchObject({ minInstanceCount: '1', patching: 'WhenIdle', imageReleaseVersion: '1.2.3' });
    expect(editGroupBody(before, before)).toEqual({});
    expect(editGroupBody(before, { ...before, minInstanceCount: '2' })).toEqual({ minInstanceCount: 2 });
    expect(editGroupBody(before, { ...before, patching: 'DrainFirst', drainTimeoutSeconds: '600' })).toEqual({
      autoPatch: { strategy: 'DrainFirst', drain: { drainTimeoutSeconds: 600, onDrainTimeout: 'Skip' }, maxBatchSize: { type: 'INSTANCE_COUNT', value: 1 } },
    });
    expect(editGroupBody(before, { ...before, imageReleaseVersion: '1.3.0' })).toEqual({ imageReleaseVersion: '1.3.0' });
  });

  it('refuses a minimum above the count and what the API cannot undo', () => {
    const before = depthOf(view);
    expect(Object.keys(editGroupErrors(before, { ...before, minInstanceCount: '5' }, 4))).toEqual(['minInstanceCount']);
    const undone = editGroupErrors(before, { ...before, minInstanceCount: '', patching: '', imageReleaseVersion: '' }, 4);
    expect(Object.keys(undone).sort()).toEqual(['imageReleaseVersion', 'minInstanceCount', 'patching']);
  });
});
