"""The scheduled function's two checks. Hourly, the drift check: every ACTIVE cluster's add-ons against the
pinned dependency manifest, what drifted recorded on the cluster (usecases.events.drift_check). Every 5
minutes, sent ``{"check": "watch"}`` by its schedule: the watcher, which tells subscribers of failed training
jobs, unhealthy endpoints and training plans nearing their end (usecases.events.watch); such an invocation may
name other thresholds of hours for plans than the configured ones, ``"planExpiringHours": [72, 24]``."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.registry.front import WATCH_INPUT
from launchpod.usecases.events import drift_check, watch


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    event = event or {}
    if event.get("check") == WATCH_INPUT["check"]:
        hours = event.get("planExpiringHours")
        return watch.watch(ports=watch.real(tuple(int(h) for h in hours) if hours else None))
    return drift_check.check(ports=drift_check.real())
