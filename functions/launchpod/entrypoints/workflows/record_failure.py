"""RecordFailure: where every Task's Catch leads. Marks the phase that failed and the operation
FAILED with the error in words, and releases the cluster so the user can retry."""

from __future__ import annotations

import json
from typing import Any

from launchpod.contracts.operations import OperationStatus, PhaseStatus
from launchpod.contracts.workflows import WorkflowFailure
from launchpod.domain.errors import Conflict
from launchpod.entrypoints.notify import tell
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring


def _message(error: dict[str, Any]) -> tuple[str, str]:
    name = str(error.get("Error") or "Failed")
    cause = error.get("Cause") or ""
    try:
        parsed = json.loads(cause)
        cause = parsed.get("errorMessage", cause) if isinstance(parsed, dict) else cause
    except (TypeError, ValueError):
        pass
    if name == "States.Timeout":
        cause = cause or "The step took longer than its time limit."
    return name, str(cause or name)


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failure = WorkflowFailure.model_validate(event)
    error, message = _message(failure.error)
    store = wiring.operations()
    operation = store.get(failure.operationId)
    if failure.attempt != operation.attempt:
        # An execution of an earlier attempt (a branch Step Functions let finish after the operation failed or
        # was cancelled) ends after a retry began: the retry owns the operation now.
        return {"operationId": operation.id, "status": operation.status, "staleAttempt": failure.attempt}
    if OperationStatus(operation.status) == OperationStatus.CANCELLED or (
        OperationStatus(operation.status) == OperationStatus.FAILED and operation.message
    ):
        # Cancelled, or already recorded by a child execution whose words say more than the parent's.
        return {"operationId": operation.id, "status": operation.status}
    for p in operation.phases:
        if p.status == PhaseStatus.RUNNING:
            try:
                store.phase_failed(operation.id, p.name, error=p.error or error, message=message, terminal=True)
            except Conflict:  # a child execution ended the operation meanwhile: its record stands
                return {"operationId": operation.id, "status": store.get(operation.id).status}
        if p.status in (PhaseStatus.RUNNING, PhaseStatus.FAILED) and p.error:
            error = p.error  # the AWS or Kubernetes code says more than PermanentError
    logger.warning("operation failed", extra={"error": error, "cause": message})
    store.finish(operation.id, OperationStatus.FAILED, error=error, message=message, attempt=operation.attempt)
    tell(
        operation.target,
        "operation-failed",
        f"{operation.id}#{operation.attempt}",  # once per failure: a retry that fails again is told again
        f"{operation.kind} failed on {operation.target}",
        f"Operation {operation.id} ({operation.kind}, attempt {operation.attempt}) failed: {error}: {message}",
        f"/operations/{operation.id}",
    )
    return {"operationId": operation.id, "status": OperationStatus.FAILED.value, "error": error}
