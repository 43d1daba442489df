// The explicit-diff contract: edit forms send only what the user changed, and the backend compares it with
// the real resource (an empty plan answers 200 NOOP and starts nothing).

import type { NoopView, OperationAcceptedView, OperationView } from './types';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The top-level fields of `edited` that differ from `original`; a changed nested value is sent whole. */
export function changedFields<T extends Record<string, unknown>>(original: T, edited: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(edited) as (keyof T)[]) {
    if (!same(original[key], edited[key])) out[key] = edited[key];
  }
  return out;
}

export type EditOutcome = { kind: 'noop'; message: string } | { kind: 'accepted'; operation: OperationView };

/**
 * Send an edit as a diff. Nothing changed in the form: "No changes" without a request. The server found
 * nothing to do: its NOOP message. Otherwise the operation it started.
 */
export async function submitEdit<T extends Record<string, unknown>>(
  original: T,
  edited: T,
  send: (patch: Partial<T>) => Promise<{ data: OperationAcceptedView | NoopView }>,
): Promise<EditOutcome> {
  const patch = changedFields(original, edited);
  if (Object.keys(patch).length === 0) return { kind: 'noop', message: 'No changes' };
  const { data } = await send(patch);
  if (data.status === 'NOOP') return { kind: 'noop', message: data.message || 'No changes' };
  return { kind: 'accepted', operation: data.operation };
}
