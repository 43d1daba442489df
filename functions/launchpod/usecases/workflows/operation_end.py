"""How every workflow ends: Finish records success, RecordFailure (where every Task's Catch leads) records the
failure in words; either releases the cluster so the user can go on, or retry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.contracts.operations import OperationStatus, PhaseStatus
from launchpod.contracts.workflows import WorkflowFailure, WorkflowInput
from launchpod.domain.errors import Conflict
from launchpod.domain.operations import failure_words
from launchpod.runtime import wiring


class Tell(Protocol):
    """Tells the cluster's subscribers, once per key and kind (usecases.notifications.tell: a notification that
    cannot be sent is logged, never fails the caller)."""

    def __call__(self, cluster: str, kind: str, key: str, subject: str, text: str, path: str) -> bool: ...


def finish(doc: WorkflowInput) -> dict[str, Any]:
    """Finish: the last state of every workflow. Records success and releases the cluster."""
    if doc.child:
        # A child execution of provision-cluster: the parent finishes the operation.
        return {"operationId": doc.operationId, "status": "CHILD_SUCCEEDED"}
    wiring.operations().finish(
        doc.operationId, OperationStatus.SUCCEEDED, error=None, message="Done", attempt=doc.attempt
    )
    return {"operationId": doc.operationId, "status": OperationStatus.SUCCEEDED.value}


@dataclass(frozen=True)
class FailureRecorded:
    """What RecordFailure did: the Task's answer and, when it failed the operation now, the error and its words."""

    answer: dict[str, Any]
    error: str | None = None
    cause: str | None = None


def record_failure(failure: WorkflowFailure, tell: Tell) -> FailureRecorded:
    """RecordFailure: marks the phase that failed and the operation FAILED with the error in words, releases
    the cluster so the user can retry, and tells the cluster's subscribers."""
    error, message = failure_words(failure.error)
    store = wiring.operations()
    operation = store.get(failure.operationId)
    if failure.attempt != operation.attempt:
        # An execution of an earlier attempt (a branch Step Functions let finish after the operation failed or
        # was cancelled) ends after a retry began: the retry owns the operation now.
        return FailureRecorded(
            {"operationId": operation.id, "status": operation.status, "staleAttempt": failure.attempt}
        )
    if OperationStatus(operation.status) == OperationStatus.CANCELLED or (
        OperationStatus(operation.status) == OperationStatus.FAILED and operation.message
    ):
        # Cancelled, or already recorded by a child execution whose words say more than the parent's.
        return FailureRecorded({"operationId": operation.id, "status": operation.status})
    for p in operation.phases:
        if p.status == PhaseStatus.RUNNING:
            try:
                store.phase_failed(operation.id, p.name, error=p.error or error, message=message, terminal=True)
            except Conflict:  # a child execution ended the operation meanwhile: its record stands
                return FailureRecorded({"operationId": operation.id, "status": store.get(operation.id).status})
        if p.status in (PhaseStatus.RUNNING, PhaseStatus.FAILED) and p.error:
            error = p.error  # the AWS or Kubernetes code says more than PermanentError
    if not store.finish(operation.id, OperationStatus.FAILED, error=error, message=message, attempt=operation.attempt):
        # Ended meanwhile (a cancel, or its stopped execution's end): that end stands, and nothing is told.
        return FailureRecorded({"operationId": operation.id, "status": store.get(operation.id).status})
    tell(
        operation.target,
        "operation-failed",
        f"{operation.id}#{operation.attempt}",  # once per failure: a retry that fails again is told again
        f"{operation.kind} failed on {operation.target}",
        f"Operation {operation.id} ({operation.kind}, attempt {operation.attempt}) failed: {error}: {message}",
        f"/operations/{operation.id}",
    )
    return FailureRecorded(
        {"operationId": operation.id, "status": OperationStatus.FAILED.value, "error": error}, error, message
    )
