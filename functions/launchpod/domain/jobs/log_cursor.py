"""Where a live log pump is in a pod's log, and what of a new read is new.

The pump reads ``GET pods/{pod}/log?timestamps=true&sinceTime=<cursor>``: every line comes prefixed with
the kubelet's RFC3339Nano stamp, and the API returns the lines stamped at or after ``sinceTime`` (Kubernetes
API reference, PodLogOptions). Lines written together share a stamp, and the API server may keep only the
seconds of ``sinceTime``, so a read can start with lines already sent. The cursor is therefore the last
stamp sent and how many lines with that stamp were sent: a read skips lines stamped earlier, then that many
lines at the stamp. A read cut short by ``limitBytes`` ends in a partial line, which waits for the next read
unless the pod has ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# API Gateway WebSocket: a message is at most 128 KB (frames 32 KB); stay well under it with the envelope.
MAX_BATCH_BYTES = 96 * 1024
MAX_BATCH_LINES = 2000


@dataclass(frozen=True)
class Cursor:
    stamp: str = ""  # the kubelet's fixed-width RFC3339Nano stamp of the last line sent ("" = from the start)
    sent_at_stamp: int = 0  # lines with exactly that stamp already sent

    def to_dict(self) -> dict[str, Any]:
        return {"stamp": self.stamp, "sentAtStamp": self.sent_at_stamp}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Cursor:
        data = data or {}
        return cls(str(data.get("stamp") or ""), int(data.get("sentAtStamp") or 0))


def _split(line: str) -> tuple[str, str]:
    stamp, _, text = line.partition(" ")
    return stamp, text


def _key(stamp: str) -> tuple[str, str]:
    """Stamps compare as text once in UTC with the same width; a shorter fraction is padded."""
    whole, _, rest = stamp.partition(".")
    fraction = rest.rstrip("Z")
    return whole, fraction.ljust(9, "0")


def new_lines(cursor: Cursor, text: str, final: bool) -> list[tuple[str, str]]:
    """The (stamp, line) pairs of a read not yet sent, in order. ``final``: the pod has ended, so a last
    line without its newline is complete; otherwise it waits for the next read."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n") and not final:
        lines = lines[:-1]
    out: list[tuple[str, str]] = []
    skip = cursor.sent_at_stamp
    since = _key(cursor.stamp) if cursor.stamp else None
    for raw in lines:
        stamp, body = _split(raw.rstrip("\n"))
        key = _key(stamp)
        if since is not None and key < since:
            continue
        if since is not None and key == since and skip > 0:
            skip -= 1
            continue
        out.append((stamp, body))
    return out


def after(cursor: Cursor, sent: list[tuple[str, str]]) -> Cursor:
    """The cursor once ``sent`` (a prefix of ``new_lines``) has been delivered."""
    stamp, count = cursor.stamp, cursor.sent_at_stamp
    for line_stamp, _ in sent:
        if stamp and _key(line_stamp) == _key(stamp):
            count += 1
        else:
            stamp, count = line_stamp, 1
    return Cursor(stamp, count)


def batches(
    lines: list[tuple[str, str]], max_lines: int = MAX_BATCH_LINES, max_bytes: int = MAX_BATCH_BYTES
) -> list[list[tuple[str, str]]]:
    """(stamp, line) pairs cut into WebSocket-sized batches, in order; a line longer than a batch is cut."""
    out: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    size = 0
    for stamp, line in lines:
        encoded = len(line.encode())
        if encoded > max_bytes - 64:
            line = line.encode()[: max_bytes - 80].decode(errors="ignore") + " [truncated]"
            encoded = len(line.encode())
        if current and (len(current) >= max_lines or size + encoded > max_bytes):
            out.append(current)
            current, size = [], 0
        current.append((stamp, line))
        size += encoded + 8  # JSON quoting and the comma
    if current:
        out.append(current)
    return out
