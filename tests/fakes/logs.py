"""CloudWatch Logs in memory: the ShippedLogs port (adapters.aws.logs)."""

from __future__ import annotations

from typing import Any


class ShippedLogs:
    """CloudWatch Logs' container lines: ``found`` answers every read (None: nothing shipped); ``asked`` is
    (group, pattern, tail, start_ms) of each read."""

    def __init__(self, found: Any = None) -> None:
        self.found, self.asked = found, list[tuple[str, str, int, int | None]]()

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> Any:
        self.asked.append((group, pattern, tail, start_ms))
        return self.found
