// Load data from the API with loading and error state, and an optional refresh interval.

import { useCallback, useEffect, useRef, useState } from 'react';

export function useFetch<T>(load: () => Promise<{ data: T }>, deps: unknown[], refreshMs?: number) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    try {
      const result = await loadRef.current();
      setData(result.data);
      setError(null);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    setLoading(true);
    void reload();
    if (!refreshMs) return undefined;
    const interval = window.setInterval(() => void reload(), refreshMs);
    return () => window.clearInterval(interval);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, refreshMs, reload]);

  return { data, error, loading, reload };
}
