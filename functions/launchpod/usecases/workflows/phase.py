"""What every workflow phase does around its own work, on the operation's record.

It records the phase on the operation (RUNNING, then SUCCEEDED / SKIPPED / FAILED with times,
attempts and the error in words), resumes a retried operation by handing back the outputs of
phases that already succeeded, and lets exactly two errors cross into Step Functions:
``RetryableError`` (retried by the Task's Retry block) and ``PermanentError`` (caught and
recorded by ``RecordFailure``). The Lambda handler (launchpod.entrypoints.workflows.phase) only parses
the event, calls ``run_phase`` and returns its document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from launchpod.contracts.operations import OperationStatus, OperationView, PhaseStatus
from launchpod.contracts.phase_outputs import PhaseOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import Conflict, LaunchpodError, PermanentError, RetryableError
from launchpod.domain.operations import now
from launchpod.runtime import wiring


@dataclass
class PhaseResult:
    # a PhaseOutput when later phases read it (launchpod.contracts.phase_outputs), else what the record shows
    outputs: dict[str, Any] | PhaseOutput = field(default_factory=dict)
    message: str | None = None
    ready: bool = True  # False: a wait phase that must be polled again
    skipped: bool = False
    wait: int | None = None  # seconds until the next poll


PhaseRun = Callable[[WorkflowInput], PhaseResult]


class PhaseRecords(Protocol):
    """The operations table, as a phase writes it (adapters.store.operations)."""

    def get(self, operation_id: str) -> OperationView: ...
    def outputs(self, operation_id: str) -> dict[str, dict[str, Any]]: ...
    def phase_started(
        self, operation_id: str, phase: str, *, fresh: bool, known: Sequence[str] | None = None
    ) -> None: ...
    def phase_progress(
        self, operation_id: str, phase: str, message: str, *, known: Sequence[str] | None = None
    ) -> None: ...
    def phase_succeeded(
        self,
        operation_id: str,
        phase: str,
        message: str | None,
        outputs: dict[str, Any],
        *,
        status: PhaseStatus = PhaseStatus.SUCCEEDED,
        known: Sequence[str] | None = None,
    ) -> None: ...
    def phase_failed(
        self,
        operation_id: str,
        phase: str,
        *,
        error: str,
        message: str,
        terminal: bool,
        known: Sequence[str] | None = None,
    ) -> None: ...
    def hold_phase(self, operation_id: str, phase: str, attempt: int, until: datetime) -> datetime | None: ...
    def let_go(self, operation_id: str, phase: str, attempt: int) -> None: ...


class PhaseCrashed(PermanentError):
    """A phase raised something that is not a LaunchpodError: recorded in words, logged with its trace."""


def run_phase(
    name: str, doc: WorkflowInput, remaining_ms: int, run: PhaseRun, store: PhaseRecords | None = None
) -> dict[str, Any]:
    """Run one phase on the operation's record and answer the workflow document for the next state."""
    store = store or wiring.operations()
    try:
        return _invoke(name, doc, remaining_ms, run, store)
    finally:
        # Let go only after the phase's last write, so a retry waiting on it never races that write.
        store.let_go(doc.operationId, name, doc.attempt)


def _invoke(name: str, doc: WorkflowInput, remaining_ms: int, run: PhaseRun, store: PhaseRecords) -> dict[str, Any]:
    operation = store.get(doc.operationId)
    if doc.attempt != operation.attempt:
        # An execution of an earlier attempt that Step Functions did not stop (a branch of a
        # failed Parallel, a child it lost track of): the retry owns the operation now.
        raise PermanentError(
            f"Operation {doc.operationId} is on attempt {operation.attempt}; attempt {doc.attempt} stops here."
        )
    known = [p.name for p in operation.phases]  # the order never changes: no need to read it again
    current = next((p for p in operation.phases if p.name == name), None)
    if current is None:
        raise PermanentError(f"Operation {doc.operationId} has no phase {name}.")
    if current.status in (PhaseStatus.SUCCEEDED, PhaseStatus.SKIPPED):
        # A retried operation: this phase finished in an earlier attempt.
        doc.outputs[name] = store.outputs(doc.operationId).get(name, {})
        doc.ready = True
        return doc.model_dump(mode="json")
    fresh = current.status != PhaseStatus.RUNNING or current.error is not None
    # A poll of a phase already running on a running operation changes nothing on the record: no write (and
    # no stream record for the subscribers to be pushed). An ended operation is refused by the write.
    if fresh or operation.status != OperationStatus.RUNNING:
        try:
            store.phase_started(doc.operationId, name, fresh=fresh, known=known)
        except Conflict as exc:
            raise PermanentError(exc.message) from exc
    try:
        result = _holding(store, doc, name, remaining_ms, run)
    except RetryableError as exc:
        store.phase_failed(
            doc.operationId, name, error=exc.code, message=f"Retrying: {exc.message}", terminal=False, known=known
        )
        raise
    except LaunchpodError as exc:
        store.phase_failed(
            doc.operationId,
            name,
            error=exc.extra.get("aws_code", exc.code),
            message=exc.message,
            terminal=True,
            known=known,
        )
        raise PermanentError(exc.message) from exc
    except Exception as exc:
        message = (
            f"{name} failed unexpectedly ({type(exc).__name__}: {exc}). Retry the operation; "
            "if it fails again, report it with the operation id."
        )
        store.phase_failed(doc.operationId, name, error="InternalError", message=message, terminal=True, known=known)
        raise PhaseCrashed(message) from exc
    if not result.ready:
        doc.poll[name] = doc.poll.get(name, 0) + 1
        doc.ready = False
        doc.wait = result.wait or doc.wait
        if result.message and result.message != current.message:  # the same words again are no news
            store.phase_progress(doc.operationId, name, result.message, known=known)
        return doc.model_dump(mode="json")
    status = PhaseStatus.SKIPPED if result.skipped else PhaseStatus.SUCCEEDED
    outputs = result.outputs
    if isinstance(outputs, PhaseOutput):
        if name != outputs.PHASE:
            raise PermanentError(f"{name} returned {type(outputs).__name__}, the output of {outputs.PHASE}.")
        outputs = outputs.model_dump(mode="json")
    store.phase_succeeded(doc.operationId, name, result.message, outputs, status=status, known=known)
    doc.outputs[name] = outputs
    doc.ready = True
    return doc.model_dump(mode="json")


def _holding(store: PhaseRecords, doc: WorkflowInput, name: str, remaining_ms: int, run: PhaseRun) -> PhaseResult:
    """Run the phase once no invocation of an earlier attempt still runs it.

    Step Functions does not stop a running Lambda function when it stops an execution
    (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html), so after a
    cancel and a retry, the cancelled attempt's invocation can still be making what this one would make:
    two NAT gateways, one address taken twice. This one waits (RetryableError, the Task's Retry) until
    that invocation returns or its function's timeout passes.
    """
    busy = store.hold_phase(doc.operationId, name, doc.attempt, now() + timedelta(milliseconds=remaining_ms))
    if busy is not None:
        raise RetryableError(
            f"Waiting for the cancelled attempt's run of {name} to return (by {busy:%H:%M:%S} UTC at the "
            "latest): Step Functions lets a function it has stopped waiting on finish."
        )
    return run(doc)
