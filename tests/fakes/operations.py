"""The operations table and Step Functions in memory: the OperationStore / OperationLog port
(adapters.store.operations.DynamoOperations) and the WorkflowRunner port (adapters.aws.sfn.StepFunctions).

Held to the adapters by tests/ports/test_operation_store.py and tests/ports/test_workflow_runner.py."""

from __future__ import annotations

import builtins
from typing import Any

from launchpod.adapters.store.dynamo import decode_cursor, encode_cursor
from launchpod.contracts.operations import OperationStatus, OperationView
from launchpod.domain.errors import Conflict, NotFound, RetryableError
from launchpod.domain.operations import ended_phases, now

ACCOUNT_REGION = "us-east-1:123456789012"


class Operations:
    """Operations by id and the cluster locks: one unfinished operation holds its cluster, as the adapter's
    transaction over the operations and clusters tables enforces it.

    ``ops`` (by id) and ``locks`` (holder by cluster) are open to tests that set up a phase's state."""

    def __init__(self) -> None:
        self.ops: dict[str, OperationView] = {}
        self.keys: dict[str, str] = {}
        self.locks: dict[str, str] = {}
        self.executions: dict[str, str] = {}

    def _busy(self, cluster: str, holder: str) -> Conflict:
        return Conflict(
            f"Cluster {cluster} is busy with operation {holder}; wait for it to finish or cancel it.", holder=holder
        )

    def create_holding_cluster(self, operation: OperationView, request_key: str) -> None:
        holder = self.locks.get(operation.target)
        if holder and holder != operation.id:
            raise self._busy(operation.target, holder)
        self.ops[operation.id], self.keys[operation.id] = operation, request_key
        self.locks[operation.target] = operation.id

    def _known(self, operation_id: str) -> OperationView:
        if operation_id not in self.ops:
            raise NotFound(f"Operation {operation_id} does not exist.")
        return self.ops[operation_id]

    def get(self, operation_id: str) -> OperationView:
        return self._known(operation_id)

    def request_key_of(self, operation_id: str) -> str | None:
        self._known(operation_id)
        return self.keys.get(operation_id)

    def set_execution(self, operation_id: str, execution_arn: str) -> bool:
        """Only the ARN: the operation stays PENDING until its first phase starts; not on one that has ended."""
        operation = self._known(operation_id)
        if OperationStatus(operation.status).terminal:
            return False
        self.executions[operation_id] = execution_arn
        self.ops[operation_id] = operation.model_copy(update={"updatedAt": now()})
        return True

    def execution_of(self, operation_id: str) -> str | None:
        self._known(operation_id)
        return self.executions.get(operation_id)

    def restart(self, operation: OperationView) -> None:
        holder = self.locks.get(operation.target)
        if holder and holder != operation.id:
            raise Conflict(
                f"Cluster {operation.target} is busy with operation {holder}; retry when it has finished.",
                holder=holder,
            )
        stored = self._known(operation.id)
        self.ops[operation.id] = stored.model_copy(
            update={
                "status": OperationStatus.PENDING,
                "phases": operation.phases,
                "attempt": operation.attempt,
                "error": None,
                "message": None,
                "updatedAt": now(),
            }
        )
        self.locks[operation.target] = operation.id

    def finish(
        self,
        operation_id: str,
        status: OperationStatus,
        *,
        error: str | None,
        message: str | None,
        attempt: int | None = None,
    ) -> bool:
        """The terminal status, once: an ended operation keeps its first end (False); its phases as
        ``ended_phases`` ends them; with ``attempt``, nothing when a retry has begun since; the cluster is
        released when this operation held it."""
        operation = self._known(operation_id)
        if attempt is not None and operation.attempt != attempt:
            return False
        if OperationStatus(operation.status).terminal:
            self.release(operation.target, operation_id)
            return False
        at = now()
        phases = ended_phases(operation.phases, status, at)
        self.ops[operation_id] = operation.model_copy(
            update={"status": status, "error": error, "message": message, "phases": phases, "updatedAt": at}
        )
        self.release(operation.target, operation_id)
        return True

    def release(self, cluster: str, operation_id: str) -> None:
        """The cluster's lock let go, when ``operation_id`` holds it."""
        if self.locks.get(cluster) == operation_id:
            del self.locks[cluster]

    def holder(self, cluster: str) -> str | None:
        return self.locks.get(cluster)

    def list(self, *, target: str | None, status: str | None, limit: int) -> builtins.list[OperationView]:
        return self.page(target=target, status=status, limit=limit)[0]

    def page(
        self, *, target: str | None, status: str | None, limit: int, cursor: str | None = None
    ) -> tuple[builtins.list[OperationView], str | None]:
        """Newest first (by creation time); the cursor (opaque, as the adapter's: it names its filters) is
        where the next page starts."""
        found = [
            o
            for o in sorted(self.ops.values(), key=lambda o: (o.createdAt, o.id), reverse=True)
            if (target is None or o.target == target) and (status is None or o.status == status)
        ]
        scope = [target, status]
        start = int(decode_cursor(cursor, scope)["next"]) if cursor else 0
        more = len(found) > start + limit
        return found[start : start + limit], encode_cursor({"next": start + limit}, scope) if more else None


class Workflows:
    """Step Functions' executions: ``started`` holds (workflow, execution name, document) of each execution
    started, ``stopped`` the ARNs stopped. A name already started starts nothing more (its ARN is the answer).

    ``fail`` makes every start a throttled StartExecution; with ``store``, what the store recorded as the
    operation's execution at each start is kept in ``recorded_at_start``.

    ``sent`` is (token, output) of each task woken. ``waiting`` is the task tokens a task waits on (None: any
    token names a waiting task); a task is woken once, as SendTaskSuccess wakes it."""

    def __init__(self, fail: bool = False, store: Operations | None = None, waiting: set[str] | None = None) -> None:
        self.started: list[tuple[str, str, dict[str, Any]]] = []
        self.stopped: list[str] = []
        self.fail, self.store = fail, store
        self.recorded_at_start: list[str | None] = []
        self.waiting = waiting
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def execution_arn(self, workflow: str, execution_name: str) -> str:
        return f"arn:aws:states:{ACCOUNT_REGION}:execution:{workflow}:{execution_name}"

    def start(self, workflow: str, execution_name: str, document: dict[str, Any]) -> str:
        if self.store is not None:
            self.recorded_at_start.append(self.store.execution_of(document["operationId"]))
        if self.fail:
            raise RetryableError("Step Functions is throttling")
        if all((w, n) != (workflow, execution_name) for w, n, _ in self.started):
            self.started.append((workflow, execution_name, document))
        return self.execution_arn(workflow, execution_name)

    def stop(self, execution_arn: str, cause: str) -> None:
        self.stopped.append(execution_arn)

    def send_task_success(self, token: str, output: dict[str, Any]) -> bool:
        """Wake the task waiting on ``token``; False when no task waits on it (any more)."""
        if (self.waiting is not None and token not in self.waiting) or any(t == token for t, _ in self.sent):
            return False
        self.sent.append((token, output))
        return True
