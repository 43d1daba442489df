"""Step Functions execution status changes: an execution that ended without passing through Finish or
RecordFailure (timed out, aborted outside Launchpod, or failed in RecordFailure itself) still leaves its
operation in a terminal state with the reason, and its cluster released."""

from __future__ import annotations

import logging
from typing import Any

from launchpod.contracts.operations import OperationStatus
from launchpod.domain.errors import NotFound
from launchpod.domain.operations import OperationStore
from launchpod.runtime import wiring

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)

_ENDED = {"FAILED": "failed", "TIMED_OUT": "timed out", "ABORTED": "was stopped"}


def real() -> OperationStore:
    """The deployed operations table (runtime.wiring)."""
    return wiring.operations()


def operation_id_of(execution_name: str) -> str:
    """Executions are named after their operation: ``op-…`` or ``op-…-r<n>`` for retries."""
    head, _, tail = execution_name.rpartition("-r")
    return head if head.startswith("op-") and tail.isdigit() else execution_name


def attempt_of(execution_name: str) -> int:
    """The attempt an execution runs (domain.operations names a retry's ``op-…-r<attempt - 1>``)."""
    _, _, tail = execution_name.rpartition("-r")
    return int(tail) + 1 if execution_name.startswith("op-") and tail.isdigit() else 1


def ended(detail: dict[str, Any], *, ports: OperationStore) -> dict[str, Any]:
    """End the operation of an execution that ended on its own, unless it ended already."""
    status, name = detail.get("status"), str(detail.get("name", ""))
    if status not in _ENDED or not name.startswith("op-"):
        return {"changed": False}
    try:
        operation = ports.get(operation_id_of(name))
    except NotFound:
        return {"changed": False}
    if OperationStatus(operation.status).terminal or attempt_of(name) != operation.attempt:
        return {"changed": False}  # ended already, or the execution of an attempt a retry has replaced
    message = f"The workflow execution {_ENDED[status]}" + (f": {detail['cause']}" if detail.get("cause") else ".")
    final = OperationStatus.CANCELLED if status == "ABORTED" else OperationStatus.FAILED
    if not ports.finish(
        operation.id, final, error=detail.get("error") or status, message=message, attempt=operation.attempt
    ):
        return {"changed": False}  # ended meanwhile (a cancel writes its own end after stopping the execution)
    log.warning("operation ended by its execution", extra={"operation_id": operation.id, "status": status})
    return {"changed": True, "operationId": operation.id, "status": final.value}
