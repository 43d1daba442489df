import { describe, expect, it, vi } from 'vitest';

import { changedFields, submitEdit } from '../diff';

describe('explicit diff', () => {
  it('sends only the fields the user changed', () => {
    const original = { instanceCount: 4, threadsPerCore: 1, deepHealthChecks: ['InstanceStress'] };
    const edited = { instanceCount: 8, threadsPerCore: 1, deepHealthChecks: ['InstanceStress'] };
    expect(changedFields(original, edited)).toEqual({ instanceCount: 8 });
  });

  it('sends a changed list whole', () => {
    expect(changedFields({ zones: ['a', 'b'] }, { zones: ['a', 'c'] })).toEqual({ zones: ['a', 'c'] });
  });

  it('answers "No changes" without a request when nothing changed', async () => {
    const send = vi.fn();
    const outcome = await submitEdit({ a: 1 }, { a: 1 }, send);
    expect(outcome).toEqual({ kind: 'noop', message: 'No changes' });
    expect(send).not.toHaveBeenCalled();
  });

  it("shows the server's NOOP message", async () => {
    const send = vi.fn().mockResolvedValue({ data: { status: 'NOOP', message: 'No changes' } });
    const outcome = await submitEdit({ a: 1, b: 2 }, { a: 1, b: 3 }, send);
    expect(send).toHaveBeenCalledWith({ b: 3 });
    expect(outcome).toEqual({ kind: 'noop', message: 'No changes' });
  });
});
