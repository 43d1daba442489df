// A training job's log, followed live: the REST tail first (so the panel is never empty), then the lines
// the log pump pushes on logs:<cluster>/<namespace>/<pod>, joined by logBuffer.ts; polling the REST tail
// every second when the socket cannot be used.

import { useCallback, useEffect, useState } from 'react';

import { jobsApi, type JobLogsView } from './jobs';
import { emptyLog, waiting, withStream, withTail, type LogBuffer } from './logBuffer';
import { subscribeTopic, type Transport } from './socket';

export const LOG_POLL_MS = 1000;
const TAIL = 200;

interface LogMessage {
  lines?: string[];
  ended?: boolean;
  reason?: string;
}

/** `hasPods`: the job has a pod whose log can be read; `running`: the job is not finished. */
export function useJobLog(cluster: string, job: string, namespace: string | undefined, hasPods: boolean, running: boolean) {
  const [log, setLog] = useState<LogBuffer>(emptyLog);
  const [view, setView] = useState<JobLogsView | null>(null);
  const [transport, setTransport] = useState<Transport>('connecting');
  const [reason, setReason] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  // "replace": polling, each read is the whole panel; "anchor": a tail for the seam with the stream.
  const readTail = useCallback(
    async (mode: 'replace' | 'anchor') => {
      try {
        const { data } = await jobsApi.logs(cluster, job, undefined, TAIL);
        setView(data);
        setError(null);
        setLog((current) => withTail(mode === 'replace' ? emptyLog : current, data.lines));
      } catch (caught) {
        setError(caught);
      }
    },
    [cluster, job],
  );

  useEffect(() => {
    setLog(emptyLog);
    setView(null);
    setTransport('connecting');
    setReason(null);
    setError(null);
  }, [cluster, job]);

  // Read once even without pods: a gone pod's log may come back from CloudWatch Logs (observability on).
  useEffect(() => {
    if (!view) void readTail('anchor');
  }, [view, readTail]);

  // Only a live pod's log is pumped; lines from CloudWatch Logs are the whole answer.
  const pod = view?.retained && view.source !== 'cloudwatch' ? view.pod : null;
  useEffect(() => {
    if (!pod || !namespace) return undefined;
    setTransport('connecting');
    return subscribeTopic(`logs:${cluster}/${namespace}/${pod}`, {
      onSubscribed: () => {
        setTransport('websocket');
        // The seam's anchor is read now, so a pump we joined cannot have started past its end.
        void readTail('anchor');
      },
      onMessage: (message) => {
        if (message.type !== 'log') return;
        const data = (message.data ?? {}) as LogMessage;
        if (data.reason) setReason(data.reason);
        setLog((current) => withStream(current, data.lines ?? [], Boolean(data.ended)));
      },
      onFallback: () => {
        setTransport('polling');
        // Keep what is shown until the next read replaces it.
        setLog((current) => withTail(emptyLog, current.shown));
      },
    });
  }, [cluster, namespace, pod, readTail]);

  // REST reads: every second while polling a running job (and once more when it ends), and while the
  // stream waits for a fresher tail to meet.
  const held = transport === 'websocket' && waiting(log);
  const poll = transport === 'polling' && running;
  useEffect(() => {
    if (!(poll || held || (hasPods && !view))) return undefined; // the last: a first read that failed
    const interval = window.setInterval(() => void readTail(poll ? 'replace' : 'anchor'), LOG_POLL_MS);
    return () => window.clearInterval(interval);
  }, [hasPods, view, poll, held, readTail]);
  useEffect(() => {
    if (transport === 'polling' && !running) void readTail('replace');
  }, [transport, running, readTail]);

  const ended = log.ended || (transport === 'polling' && !running);
  return { lines: log.shown, view, transport, ended, reason, error };
}
