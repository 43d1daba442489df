"""Scheduled drift check: every ACTIVE cluster's add-ons against the pinned dependency manifest, what
drifted recorded on the cluster (usecases.events.drift_check)."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.usecases.events import drift_check


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return drift_check.check(ports=drift_check.real())
