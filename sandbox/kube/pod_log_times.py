"""The kubelet's ``timestamps`` and ``sinceTime`` on a pod's log.

Kubernetes API reference, PodLogOptions: ``sinceTime`` is "an RFC3339 timestamp from which to show logs"
(lines stamped before it are left out; a line stamped exactly at it is shown: the kubelet skips a line only
when its time is before ``sinceTime``, pkg/kubelet/kuberuntime/logs/logs.go), ``timestamps`` "add an
RFC3339 or RFC3339Nano timestamp at the beginning of every line". The kubelet's format is fixed-width
nanoseconds (``timeFormatOut = "2006-01-02T15:04:05.000000000Z07:00"`` in that file). The container
runtime stamps each chunk it reads from the container's stdout, so lines written together share a stamp;
the emulator stamps each ``append_log`` chunk once (its wall-clock time, like the pods' other times).
"""

from __future__ import annotations

import bisect
import datetime
import re

_RFC3339 = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$")


def parse_rfc3339(text: str) -> int | None:
    """Nanoseconds since the epoch; None when it is not RFC3339 (Go's time.Parse accepts a fraction)."""
    match = _RFC3339.match(text.strip())
    if not match:
        return None
    whole, fraction, zone = match.groups()
    try:
        at = datetime.datetime.fromisoformat(whole + ("+00:00" if zone == "Z" else zone))
    except ValueError:
        return None
    return int(at.timestamp()) * 1_000_000_000 + int((fraction or "").ljust(9, "0"))


def format_ns(ns: int) -> str:
    seconds, nanos = divmod(ns, 1_000_000_000)
    at = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


def render(text: str, marks: list[tuple[float, int, int]], start: int, since_ns: int | None, stamped: bool) -> str:
    """The log from offset ``start`` without the lines stamped before ``since_ns``, each line prefixed with
    its stamp when ``stamped``. ``marks`` are (monotonic time, offset, wall ns) per appended chunk."""
    if not marks:
        return text[start:]
    first = 0
    if since_ns is not None:
        first = bisect.bisect_left([m[2] for m in marks], since_ns)
        if first >= len(marks):
            return ""
    out: list[str] = []
    for index in range(first, len(marks)):
        begin = max(marks[index][1], start)
        end = marks[index + 1][1] if index + 1 < len(marks) else len(text)
        if begin >= end:
            continue
        chunk = text[begin:end]
        if not stamped:
            out.append(chunk)
            continue
        stamp = format_ns(marks[index][2])
        out.extend(f"{stamp} {line}" for line in chunk.splitlines(keepends=True))
    return "".join(out)
