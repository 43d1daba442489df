"""CloudWatch Logs in memory: the ShippedLogs port (adapters.aws.logs)."""

from __future__ import annotations

from typing import Any


class NoShippedLogs:
    """CloudWatch Logs with nothing shipped."""

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> Any:
        return None
