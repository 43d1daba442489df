// The user's actions behind buttons: which one runs (its button shows it loading), and what the last one
// threw, kept for an ErrorAlert until the user dismisses it (setError(null)) or tries again.

import { useState } from 'react';

/** Several actions, one at a time, told apart by name: `busy` is the running one's. */
export function useActions<Name extends string>() {
  const [busy, setBusy] = useState<Name | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function run(name: Name, action: () => Promise<void>) {
    setBusy(name);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  }

  return { busy, error, setError, run };
}

/** One action: `busy` while it runs. */
export function useAction() {
  const { busy, error, setError, run } = useActions<'action'>();
  return { busy: busy !== null, error, setError, run: (action: () => Promise<void>) => run('action', action) };
}
