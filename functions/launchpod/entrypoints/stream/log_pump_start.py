"""Starting a topic's live log pump unless one runs: the lease decides, so two subscribers arriving
together start one pump."""

from __future__ import annotations

import uuid

from launchpod.adapters.aws.lambda_invoke import invoke_async
from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PUMP = "log-pump"  # the registry's name for launchpod.entrypoints.stream.log_pump


def start_log_pump(topic: str) -> bool:
    """True when this call started the pump (False: one already runs, or starting it failed)."""
    holder = uuid.uuid4().hex
    pumps = wiring.log_pumps()
    if not pumps.acquire(topic, holder):
        return False
    try:
        invoke_async(f"{settings().resource_prefix}-{PUMP}", {"topic": topic, "holder": holder})
    except LaunchpodError as exc:
        pumps.release(topic, holder)
        logger.warning("could not start the log pump", extra={"topic": topic, "error": exc.message})
        return False
    return True
