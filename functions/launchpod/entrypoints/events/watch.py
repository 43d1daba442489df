"""Scheduled watcher: failed training jobs, unhealthy endpoints and training plans nearing their end, told to
each cluster's subscribers (usecases.events.watch). An invocation may name other thresholds of hours for
plans than the configured ones, ``{"planExpiringHours": [72, 24]}`` (the schedule sends none)."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.usecases.events import watch


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    hours = (event or {}).get("planExpiringHours")
    return watch.watch(ports=watch.real(tuple(int(h) for h in hours) if hours else None))
