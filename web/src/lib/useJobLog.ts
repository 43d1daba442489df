// A training job's log, followed live: the REST tail first (so the panel is never empty), then the lines
// the log pump pushes on logs:<cluster>/<namespace>/<pod>, joined by logBuffer.ts; polling the REST tail
// every second when the socket cannot be used. A pod that ends while the job runs on (a full job restart
// recreates every pod, a node failure moves them) is not the end: the panel reads the log again and follows
// the pod that now holds it.

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
  const [generation, setGeneration] = useState(0); // bumped to subscribe afresh to a pod of the same name

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
  }, [cluster, namespace, pod, readTail, generation]);

  // The stream ended but the job did not (the job view is polled each second, so a pod that simply finished
  // is seen as the job's end at the next read): start again from the REST tail of whichever pod has the log.
  // Until the recreated pod is there, the read is tried again each second; the panel keeps the old lines
  // until then, and all of it changes in one render (so this effect's own cleanup cannot cut it short).
  const moved = log.ended && running && transport === 'websocket';
  useEffect(() => {
    if (!moved) return undefined;
    let timer: number | undefined;
    let stopped = false;
    const again = () => {
      timer = window.setTimeout(async () => {
        const data = await jobsApi.logs(cluster, job, undefined, TAIL).then((r) => r.data, () => null);
        if (stopped) return;
        if (data?.retained && data.source !== 'cloudwatch') {
          setReason(null);
          setView(data);
          setLog(withTail(emptyLog, data.lines));
          setGeneration((n) => n + 1);
        } else again();
      }, LOG_POLL_MS);
    };
    again();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [moved, cluster, job]);

  // REST reads: every second while polling a running job (and once more when it ends), and while the
  // stream waits for a fresher tail to meet.
  const held = transport === 'websocket' && waiting(log);
  const poll = transport === 'polling' && running;
  // Read before the job had a pod (just submitted: the operator has not made it yet) or while its pods are
  // recreated: read again until a pod's log is there, or the job has ended with none.
  const unread = Boolean(view && !view.retained && (hasPods || running));
  useEffect(() => {
    if (!(poll || held || unread || (hasPods && !view))) return undefined; // the last: a first read that failed
    const interval = window.setInterval(() => void readTail(poll || unread ? 'replace' : 'anchor'), LOG_POLL_MS);
    return () => window.clearInterval(interval);
  }, [hasPods, view, poll, held, unread, readTail]);
  useEffect(() => {
    if (transport === 'polling' && !running) void readTail('replace');
  }, [transport, running, readTail]);

  const ended = log.ended || (transport === 'polling' && !running);
  return { lines: log.shown, view, transport, ended, reason, error };
}
