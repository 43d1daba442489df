import { describe, expect, it } from 'vitest';

import { failureAdvice } from '../failureAdvice';

describe('failureAdvice', () => {
  it('offers another zone for a failed HyperPod ask', () => {
    expect(failureAdvice('CapacityError', true)).toContain('"Try another zone"');
  });

  it('says how out of an EKS zone without room: later, or again in the zones EKS names', () => {
    const advice = failureAdvice('UnsupportedAvailabilityZoneException', false);
    expect(advice).toContain('create it again in the zones EKS names');
    expect(advice).not.toContain('Fix the cause');
  });

  it('asks to fix the cause and retry otherwise', () => {
    expect(failureAdvice(undefined, false)).toBe('Fix the cause, then choose "Retry from failed phase". Phases already done are kept.');
  });
});
