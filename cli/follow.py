"""Following what runs on: an operation to its terminal state (``--wait``), a job's log (``-f``).

Both poll the REST API, as the API documents: an operation is finished only when
``GET /api/operations/{id}`` reports SUCCEEDED, FAILED or CANCELLED, and a job's log is read with ``tail``
from ``GET .../jobs/{jobName}/logs``. Progress goes to stderr so stdout keeps only the answer
(``--output json`` stays parseable); on a terminal it is one bar redrawn in place, elsewhere one line per
change of phase.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from launchpod.contracts.operations import OperationStatus

Call = Callable[[str, dict[str, Any]], dict[str, Any]]

TERMINAL = frozenset(s.value for s in OperationStatus if s.terminal)
DONE_PHASES = frozenset({"SUCCEEDED", "SKIPPED"})
# A job's status as the API words it (JobView.status): these two are final.
JOB_FINAL = frozenset({"Succeeded", "Failed"})
BAR = 24

EXIT_OK = 0
EXIT_FAILED = 3  # the operation or job ended FAILED or CANCELLED
EXIT_INTERRUPTED = 130


def _current(op: dict[str, Any]) -> dict[str, Any] | None:
    phases = op.get("phases") or []
    return (
        next((p for p in phases if p.get("status") == "RUNNING"), None)
        or next((p for p in phases if p.get("status") in ("FAILED", "CANCELLED")), None)
        or next((p for p in phases if p.get("status") == "PENDING"), None)
    )


def progress_line(op: dict[str, Any], elapsed: float) -> str:
    """``[######------] 5/21 RUNNING  CreateCluster: Create the EKS cluster  (12 s)``"""
    phases = op.get("phases") or []
    done = sum(1 for p in phases if p.get("status") in DONE_PHASES)
    total = len(phases) or 1
    filled = round(BAR * done / total)
    phase = _current(op)
    where = f"  {phase.get('title') or phase['name']}" if phase else ""
    return f"[{'#' * filled}{'-' * (BAR - filled)}] {done}/{len(phases)} {op['status']}{where}  ({elapsed:.0f} s)"


def outcome(op: dict[str, Any], elapsed: float) -> str:
    """What happened, and for a failure where and what to do next."""
    head = f"Operation {op['id']} ({op['kind']} on {op['target']}) {op['status']} after {elapsed:.0f} s"
    if op["status"] == OperationStatus.SUCCEEDED:
        return head + "."
    failed = next((p for p in op.get("phases") or [] if p.get("status") == "FAILED"), None)
    lines = [head + (f" in phase {failed['name']} ({failed.get('title')})." if failed else ".")]
    said: list[str] = []
    for text in (failed or {}).get("message"), (failed or {}).get("error"), op.get("message"), op.get("error"):
        if text and not any(text in s for s in said):
            said.append(text)
    lines += [f"  {text}" for text in said]
    lines.append(f"Resume it from where it stopped: launchpod operations retry {op['id']} --wait")
    return "\n".join(lines)


def wait_operation(
    get: Callable[[str], dict[str, Any]],
    operation_id: str,
    *,
    interval: float,
    err: TextIO = sys.stderr,
) -> tuple[int, dict[str, Any]]:
    """Poll until the operation is terminal; (exit code, last view)."""
    live = err.isatty()
    started = time.monotonic()
    shown = ""
    ended: set[str] = set()
    op: dict[str, Any] = {}
    try:
        while True:
            op = get(operation_id)
            elapsed = time.monotonic() - started
            # every phase that ended since the last poll gets its line, however quickly it ran
            for phase in op.get("phases") or []:
                if phase.get("status") in DONE_PHASES | {"FAILED", "CANCELLED"} and phase["name"] not in ended:
                    ended.add(phase["name"])
                    title = phase.get("title") or phase["name"]
                    err.write(("\r\033[K" if live else "") + f"  {phase['status']:<9} {title}\n")
            line = progress_line(op, elapsed)
            if live:
                # one screen line, or the carriage return would redraw only its last row
                err.write("\r\033[K" + line[: shutil.get_terminal_size().columns - 1])
            elif line.split("  (")[0] != shown:
                err.write(line + "\n")
            shown = line.split("  (")[0]
            err.flush()
            if op["status"] in TERMINAL:
                break
            time.sleep(interval)
    except KeyboardInterrupt:
        err.write(
            f"\nStopped waiting; operation {operation_id} goes on. Follow it again:"
            f" launchpod operations get {operation_id} --wait\n"
        )
        return EXIT_INTERRUPTED, op
    if live:
        err.write("\n")
    err.write(outcome(op, time.monotonic() - started) + "\n")
    return (EXIT_OK if op["status"] == OperationStatus.SUCCEEDED else EXIT_FAILED), op


def new_lines(before: list[str], now: list[str]) -> list[str]:
    """The lines of ``now`` after what ``before`` already showed. Both are the tail of one growing log, so
    the longest end of ``before`` that starts ``now`` is the part seen twice. None (a restarted container
    starts a new log): all of ``now`` is new."""
    for k in range(min(len(before), len(now)), 0, -1):
        if before[-k:] == now[:k]:
            return now[k:]
    return now


def follow_logs(
    logs: Callable[[int], dict[str, Any]],
    job: Callable[[], dict[str, Any]],
    *,
    window: int,
    tail: int,
    interval: float,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Print the last ``tail`` lines, then each new line until the job is Succeeded or Failed.

    Every poll reads the same ``window`` of the log's end (the API's largest tail), so consecutive reads
    overlap and only the lines past the overlap are printed."""
    seen: list[str] = []
    first = True
    noted = ""
    try:
        while True:
            status = job()
            view = logs(window)
            lines = list(view.get("lines") or [])
            fresh = lines[-tail:] if first else new_lines(seen, lines)
            first = False
            for line in fresh:
                out.write(line + "\n")
            out.flush()
            if lines:
                seen = lines
            note = view.get("note") or ""
            if note and note != noted and not lines:
                err.write(f"({note})\n")
                noted = note
            if status.get("status") in JOB_FINAL:
                # Lines the last processes wrote as the job ended can reach the log just after its status
                # does: read the end once more, as kubectl logs -f reads to the end of the stream.
                time.sleep(interval)
                last = list(logs(window).get("lines") or [])
                for line in new_lines(seen, last) if seen else last[-tail:]:
                    out.write(line + "\n")
                out.flush()
                reason = f": {status['reason']}" if status.get("reason") else ""
                err.write(f"Job {status.get('jobName')} {status['status']}{reason}.\n")
                return EXIT_OK if status["status"] == "Succeeded" else EXIT_FAILED
            time.sleep(interval)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
