// Live operation progress: a WebSocket subscription to operation:<id>, and polling every 2 s when the
// socket cannot be used.

import { useCallback, useEffect, useRef, useState } from 'react';

import { api, ApiError } from './api';
import { subscribeTopic, type Transport } from './socket';
import { TERMINAL, type OperationView } from './types';

export type { Transport };

const POLL_MS = 2000;
const SAFETY_MS = 15000;

function newer(current: OperationView | null, next: OperationView): boolean {
  if (!current || current.id !== next.id) return true;
  return new Date(next.updatedAt).getTime() >= new Date(current.updatedAt).getTime();
}

export function useOperation(operationId: string) {
  const [operation, setOperationState] = useState<OperationView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [transport, setTransport] = useState<Transport>('connecting');
  const latest = useRef<OperationView | null>(null);

  const setOperation = useCallback((next: OperationView) => {
    if (!newer(latest.current, next)) return;
    latest.current = next;
    setOperationState(next);
  }, []);

  const refresh = useCallback(async () => {
    try {
      const { data } = await api.operation(operationId);
      setOperation(data);
      setError(null);
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught);
    }
  }, [operationId, setOperation]);

  // The socket: opened once per operation page; any failure switches to polling for good.
  useEffect(() => {
    latest.current = null;
    setOperationState(null);
    setTransport('connecting');
    void refresh();
    return subscribeTopic(`operation:${operationId}`, {
      onSubscribed: () => {
        setTransport('websocket');
        // Whatever changed between the first GET and the subscription is read once more.
        void refresh();
      },
      onMessage: (message) => {
        if (message.type !== 'operation' || !message.data) return;
        setTransport('websocket');
        setOperation(message.data as OperationView);
      },
      onFallback: () => setTransport('polling'),
    });
  }, [operationId, refresh, setOperation]);

  // Polling every 2 s until the socket has proved itself (and for good if it fails); a slow re-read while it
  // works, in case a push is lost.
  const running = operation ? !TERMINAL.has(operation.status) : true;
  useEffect(() => {
    if (!running) return undefined;
    const interval = window.setInterval(() => void refresh(), transport === 'websocket' ? SAFETY_MS : POLL_MS);
    return () => window.clearInterval(interval);
  }, [transport, running, refresh]);

  return { operation, error, transport, refresh, setOperation };
}
