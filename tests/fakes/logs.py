"""CloudWatch Logs in memory: the ShippedLogs port (adapters.aws.logs)."""

from __future__ import annotations

import json
from collections import deque

from launchpod.domain.observability import ShippedLines

from sandbox.aws.logs.filters import JsonFilterPattern


class ShippedLogs:
    """CloudWatch Logs' log groups of shipped container lines: ``ship`` adds one Fluent Bit record (the line in
    "log", the pod's fields under "kubernetes") to a group at a time, and a read applies the JSON filter pattern
    as FilterLogEvents does (the sandbox's JsonFilterPattern, the syntax of
    https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html), keeping the last
    ``tail`` lines of the first matching pod by name, oldest first. ``asked`` is (group, pattern, tail,
    start_ms) of each read. ``found``, when given, answers every read instead (the preset tests/usecases
    still pass)."""

    def __init__(self, found: ShippedLines | None = None) -> None:
        self.found, self.asked = found, list[tuple[str, str, int, int | None]]()
        self.groups: dict[str, list[tuple[int, str]]] = {}

    def ship(self, group: str, at_ms: int, line: str, namespace: str, pod: str, container: str) -> None:
        meta = {"namespace_name": namespace, "pod_name": pod, "container_name": container}
        self.groups.setdefault(group, []).append((at_ms, json.dumps({"log": line, "kubernetes": meta})))

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> ShippedLines | None:
        self.asked.append((group, pattern, tail, start_ms))
        if self.found is not None:
            return self.found
        matches = JsonFilterPattern(pattern).matches
        kept: dict[tuple[str, str], deque[str]] = {}
        for at, message in sorted(self.groups.get(group, []), key=lambda event: event[0]):
            if (start_ms is None or at >= start_ms) and matches(message):
                record = json.loads(message)
                key = (record["kubernetes"]["pod_name"], record["kubernetes"]["container_name"])
                kept.setdefault(key, deque(maxlen=tail)).append(record["log"])
        if not kept:
            return None
        (pod, container), lines = sorted(kept.items())[0]
        return ShippedLines(pod=pod, container=container, lines=list(lines))
