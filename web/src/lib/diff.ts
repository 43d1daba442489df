// The explicit-diff contract: edit forms send only what the user changed, and the backend compares it with
// the real resource (an empty plan answers NOOP).

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The top-level fields of `edited` that differ from `original`; nested objects are sent whole when changed. */
export function changedFields<T extends Record<string, unknown>>(original: T, edited: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(edited) as (keyof T)[]) {
    if (!same(original[key], edited[key])) out[key] = edited[key];
  }
  return out;
}

export function hasChanges(patch: object): boolean {
  return Object.keys(patch).length > 0;
}
