// One user action behind a button: busy while it runs, and what it threw, kept for an ErrorAlert until the
// user dismisses it (setError(null)) or tries again.

import { useState } from 'react';

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, setError, run };
}
