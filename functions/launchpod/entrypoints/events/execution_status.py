"""Step Functions execution status changes: an execution that ended without passing through Finish or
RecordFailure still leaves its operation terminal, with the reason (usecases.events.execution_status)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.observability import logger
from launchpod.usecases.events import execution_status


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    return execution_status.ended(dict(event.detail), ports=execution_status.real())
