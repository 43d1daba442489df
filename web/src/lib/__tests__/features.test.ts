import { describe, expect, it } from 'vitest';

import { changedFields } from '../diff';
import { toggle, togglesOf } from '../features';
import type { FeatureView } from '../types';

function feature(name: FeatureView['name'], enabled: boolean, settings: Record<string, number | string> = {}): FeatureView {
  return { name, title: name, enabled, status: enabled ? 'ENABLED' : 'DISABLED', settings, objects: [], dependsOn: [], blockedBy: [], version: null, note: null, changedWith: null };
}

describe('features as the PATCH body says them', () => {
  const real = [feature('trainingOperator', false), feature('tieredCheckpointing', true, { memoryPercentage: 30 })];

  it('starts from the real state, memoryPercentage only while tiered checkpointing is on', () => {
    expect(togglesOf(real)).toEqual({
      trainingOperator: { enabled: false },
      tieredCheckpointing: { enabled: true, memoryPercentage: 30 },
    });
  });

  it('sends only the feature the user changed', () => {
    const original = togglesOf(real);
    const edited = { ...original, trainingOperator: toggle(real[0], true) };
    expect(changedFields(original, edited)).toEqual({ trainingOperator: { enabled: true } });
  });

  it('turning tiered checkpointing off sends no memory share (the API refuses one)', () => {
    const original = togglesOf(real);
    const edited = { ...original, tieredCheckpointing: toggle(real[1], false) };
    expect(changedFields(original, edited)).toEqual({ tieredCheckpointing: { enabled: false } });
  });

  it('sends nothing when the toggles are back where they were', () => {
    const original = togglesOf(real);
    const edited = { ...original, trainingOperator: toggle(real[0], false) };
    expect(changedFields(original, edited)).toEqual({});
  });

  it('leaves out what this route only reads (autoscaling changes with the instance groups)', () => {
    const readOnly = { ...feature('autoscaling', true), changedWith: 'the instance-groups routes' };
    expect(Object.keys(togglesOf([...real, readOnly]))).toEqual(['trainingOperator', 'tieredCheckpointing']);
  });

  it('a newly enabled tiered checkpointing takes the default share', () => {
    expect(toggle(feature('tieredCheckpointing', false), true)).toEqual({ enabled: true, memoryPercentage: 20 });
  });
});
