"""RecordFailure's handler: where every Task's Catch leads. The use case (usecases.workflows.operation_end)
marks the phase that failed and the operation FAILED with the error in words, releases the cluster so the
user can retry, and tells the subscribers; this logs the failure it recorded."""

from __future__ import annotations

from functools import partial
from typing import Any

from launchpod.contracts.workflows import WorkflowFailure
from launchpod.entrypoints.observability import logger
from launchpod.usecases import notifications
from launchpod.usecases.workflows import operation_end


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    tell = partial(notifications.tell, ports=notifications.real())
    recorded = operation_end.record_failure(WorkflowFailure.model_validate(event), tell)
    if recorded.error is not None:
        logger.warning("operation failed", extra={"error": recorded.error, "cause": recorded.cause})
    return recorded.answer
