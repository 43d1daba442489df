// A pod's log as the Jobs tab shows it: the REST tail first, then the lines the WebSocket's log pump
// pushes, joined without showing a line twice, in a bounded buffer.
//
// How the seam is found. Neither `GET .../logs` (JobLogsView.lines) nor the stream's `log` messages carry
// the kubelet's timestamps, so the seam cannot be matched by stamp. It is found from the stream's cursor
// semantics instead (functions/launchpod/domain/jobs/log_cursor.py): a pump posts every line of the pod's
// log once, in order, from its cursor on; a pump that starts for us begins at the log's first line, and one
// we join begins where its cursor was when we subscribed. So the stream is one contiguous run of the log,
// and so is the REST tail (its last N lines when read): two windows on the same sequence. They are lined
// up at the offset where the most lines agree, and joined there. The tail that anchors the seam is read
// after the subscription was acknowledged, so a joined pump cannot have started past its end (no gap).
// Once joined, the stream alone extends the buffer; until then a fresh pump may still be replaying lines
// older than the tail, which are held back. Identical repeated lines can make the offset ambiguous; the
// longest agreement wins, which at worst shows fewer old lines, never a line twice.

export const LOG_LIMIT = 2000;

export interface LogBuffer {
  tail: string[]; // the REST tail anchoring the seam
  pending: string[]; // stream lines not yet joined to the tail
  joined: boolean; // the seam is found: `shown` grows by the stream alone
  shown: string[]; // what the panel shows, at most LOG_LIMIT lines
  ended: boolean; // the pump said the pod ended
}

export const emptyLog: LogBuffer = { tail: [], pending: [], joined: false, shown: [], ended: false };

function bound(lines: string[], limit = LOG_LIMIT): string[] {
  return lines.length > limit ? lines.slice(lines.length - limit) : lines;
}

/** Where `stream` starts as an index into `tail` (negative: before the tail's first line) such that the lines
 * they share agree and are as many as possible; null when no offset has a line in common. */
export function alignment(tail: string[], stream: string[]): number | null {
  let best: number | null = null;
  let most = 0;
  for (let d = 1 - stream.length; d < tail.length; d++) {
    const from = Math.max(0, d);
    const to = Math.min(tail.length, d + stream.length);
    if (to - from <= most) continue;
    let same = true;
    for (let i = from; i < to && same; i++) same = tail[i] === stream[i - d];
    if (same) {
      best = d;
      most = to - from;
    }
  }
  return best;
}

function reconcile(tail: string[], pending: string[], ended: boolean): LogBuffer {
  if (!pending.length) return { tail, pending, joined: false, shown: bound(tail), ended };
  const d = alignment(tail, pending);
  if (d === null) {
    // No line in common. An empty tail, or a stream that fills the panel by itself, needs no seam.
    // Otherwise the stream is either replaying lines older than the tail (a fresh pump, caught up within
    // moments) or began just past it: the stream is held back until a fresher tail (the hook reads one
    // while `waiting`) or the replay's later lines meet it.
    if (!tail.length || pending.length >= LOG_LIMIT) return { tail, pending: [], joined: true, shown: bound(pending), ended };
    return { tail, pending, joined: false, shown: bound(tail), ended };
  }
  const head = d > 0 ? tail.slice(0, d) : [];
  if (d + pending.length < tail.length) {
    // The stream is still behind the tail's end: show the tail, and wait for the stream to pass it.
    const before = d < 0 ? pending.slice(0, -d) : [];
    return { tail, pending, joined: false, shown: bound(before.concat(tail)), ended };
  }
  return { tail, pending: [], joined: true, shown: bound(head.concat(pending)), ended };
}

/** A REST tail: it anchors the seam until the stream is joined, and is ignored after. */
export function withTail(log: LogBuffer, tail: string[]): LogBuffer {
  return log.joined ? log : reconcile(tail, log.pending, log.ended);
}

/** Streamed lines are held back for want of a seam: a fresher REST tail would help. */
export function waiting(log: LogBuffer): boolean {
  return !log.joined && log.pending.length > 0;
}

/** Lines pushed by the pump, in order; `ended` once the pod is done. */
export function withStream(log: LogBuffer, lines: string[], ended = false): LogBuffer {
  const done = log.ended || ended;
  if (log.joined) return { ...log, shown: lines.length ? bound(log.shown.concat(lines)) : log.shown, ended: done };
  return reconcile(log.tail, bound(log.pending.concat(lines), LOG_LIMIT + log.tail.length), done);
}
