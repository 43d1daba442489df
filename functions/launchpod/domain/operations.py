"""Operations: how a mutation is recorded, started, advanced, retried and cancelled.

``submit`` is the use case behind every mutating route: it records the operation (holding the
cluster) before starting its workflow, so a retried call finds the record and never repeats a
mutation. The ports it needs are passed in; nothing here talks to AWS.
"""

from __future__ import annotations

import functools
import hashlib
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, OperationView, PhaseStatus, PhaseView
from launchpod.contracts.plans import PlanStepView
from launchpod.domain.errors import Conflict, Forbidden, RetryableError
from launchpod.domain.plan import Plan, Step

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def now() -> datetime:
    return datetime.now(UTC)


def new_operation_id() -> str:
    """Sortable by creation time (ms timestamp first), like a ULID, in our id pattern."""
    millis = int(time.time() * 1000)
    stamp = ""
    for _ in range(10):
        stamp = _ALPHABET[millis % 32] + stamp
        millis //= 32
    return "op-" + stamp + "".join(secrets.choice(_ALPHABET) for _ in range(8))


def request_key(kind: str, target: str, request: dict[str, Any]) -> str:
    """Identifies 'the same request on the same target', whatever the key order of the JSON."""
    canonical = json.dumps({"kind": kind, "target": target, "request": request}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def status_url(operation_id: str) -> str:
    return f"/api/operations/{operation_id}"


@dataclass(frozen=True)
class Principal:
    subject: str
    role: Role
    # ?dryRun=true on a route whose plan is the workflow it starts: ``submit`` and ``retry`` answer that
    # plan (Planned) after every check the real request passes, and record and start nothing.
    dry_run: bool = False


class Planned(Exception):  # not an error: the answer of a dry run, carried past the route's own code
    """A dry run reached the point where the mutation would be recorded: these are its steps."""

    def __init__(self, target: str, steps: Sequence[PlanStepView]) -> None:
        super().__init__(f"dry run of a mutation on {target}")
        self.target = target
        self.steps = list(steps)
        self.warnings: list[str] = []  # what the route's own checks found (a plan the group waits for)


class NamedRequest(Protocol):
    """A mutation's request: a pydantic model naming its cluster (``name``, from the route's path)."""

    @property
    def name(self) -> str: ...
    def model_dump(self, *, mode: str, exclude_none: bool) -> dict[str, Any]: ...


@runtime_checkable
class ClusterRequest(Protocol):
    """A request that creates or imports a cluster: its body names it ``cluster``."""

    @property
    def cluster(self) -> str: ...
    def model_dump(self, *, mode: str, exclude_none: bool) -> dict[str, Any]: ...


@dataclass(frozen=True)
class WorkflowPlan:
    """What a mutation will do: which workflow, its phases (name, title) and the role it needs."""

    kind: str
    target: str
    request: dict[str, Any]
    phases: Sequence[tuple[str, str]]
    role: Role
    # The planner's steps (launchpod.domain.plan), recorded on the operation.
    steps: Sequence[PlanStepView] = ()

    @classmethod
    def of(
        cls,
        kind: str,
        request: NamedRequest | ClusterRequest,
        phases: Sequence[tuple[str, str]],
        steps: Sequence[Step] = (),
        *,
        exclude_none: bool = True,
    ) -> WorkflowPlan:
        """The workflow ``kind`` on the cluster the request names, with the request as JSON, the role the kind
        needs and, given, the planner's steps."""
        return cls(
            kind=kind,
            target=request.cluster if isinstance(request, ClusterRequest) else request.name,
            request=request.model_dump(mode="json", exclude_none=exclude_none),
            phases=phases,
            role=role_for(kind),
            steps=[s.view() for s in steps],
        )


class OperationStore(Protocol):
    def create_holding_cluster(self, operation: OperationView, request_key: str) -> None:
        """Write the operation and take the cluster's lock in one transaction.

        Raises Conflict(holder=<operation id>) when another operation holds the cluster.
        """

    def get(self, operation_id: str) -> OperationView: ...

    def request_key_of(self, operation_id: str) -> str | None: ...

    def set_execution(self, operation_id: str, execution_arn: str) -> bool:
        """Record the execution that will run the operation; False (nothing written) once it has ended."""

    def restart(self, operation: OperationView) -> None:
        """Store a retried operation (status, phases, attempt) and take the cluster's lock again."""

    def finish(
        self,
        operation_id: str,
        status: OperationStatus,
        *,
        error: str | None,
        message: str | None,
        attempt: int | None = None,
    ) -> bool:
        """Record a terminal status and release the cluster; with ``attempt``, only if the operation is still
        on that attempt. An operation ends once: False when it had ended already (its first end stands) or a
        retry has replaced the attempt."""

    def execution_of(self, operation_id: str) -> str | None: ...


class WorkflowRunner(Protocol):
    def execution_arn(self, workflow: str, execution_name: str) -> str:
        """The ARN an execution of ``workflow`` named ``execution_name`` has (known before it starts)."""

    def start(self, workflow: str, execution_name: str, document: dict[str, Any]) -> str: ...

    def stop(self, execution_arn: str, cause: str) -> None: ...


def new_operation(plan: WorkflowPlan, principal: Principal) -> OperationView:
    created = now()
    op_id = new_operation_id()
    return OperationView(
        id=op_id,
        kind=plan.kind,
        target=plan.target,
        status=OperationStatus.PENDING,
        phases=[PhaseView(name=name, title=title) for name, title in plan.phases],
        request=plan.request,
        createdAt=created,
        updatedAt=created,
        createdBy=principal.subject,
        statusUrl=status_url(op_id),
        plan=plan_steps(plan.kind, plan.steps, plan.phases),
    )


def workflow_document(operation: OperationView) -> dict[str, Any]:
    return {
        "operationId": operation.id,
        "kind": operation.kind,
        "target": operation.target,
        "request": operation.request,
        "attempt": operation.attempt,
        "outputs": {},
        "poll": {},
    }


def ended_phases(phases: Sequence[PhaseView], status: OperationStatus, at: datetime) -> list[PhaseView]:
    """The phases of an operation that ends with ``status``, as the OperationStore records them: a cancel ends
    those still pending or running as CANCELLED (a running one at ``at``); any other end leaves them as
    they are."""
    if status != OperationStatus.CANCELLED:
        return list(phases)
    return [
        p.model_copy(
            update={"status": PhaseStatus.CANCELLED, "endedAt": at if p.status == PhaseStatus.RUNNING else None}
        )
        if p.status in (PhaseStatus.RUNNING, PhaseStatus.PENDING)
        else p
        for p in phases
    ]


def execution_name(operation: OperationView) -> str:
    return operation.id if operation.attempt == 1 else f"{operation.id}-r{operation.attempt - 1}"


def failure_words(error: dict[str, Any]) -> tuple[str, str]:
    """Step Functions' error, as a Catch hands it on ({Error, Cause}), as (error name, message in words).

    A Lambda function's error arrives with its Cause a JSON string of ``errorMessage``, ``errorType`` and
    ``stackTrace``; a Task that ran out of time arrives as ``States.Timeout``, often with no Cause
    (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html)."""
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


def submit(
    store: OperationStore, runner: WorkflowRunner, plan: WorkflowPlan, principal: Principal
) -> tuple[OperationView, bool]:
    """Record and start a mutation. Returns (operation, created); created is False when the same
    request on the same target is already in flight and that operation is returned instead."""
    if not principal.role.allows(plan.role):
        raise Forbidden(f"This needs the {Role(plan.role).value} role; you are {principal.role.value}.")
    if principal.dry_run:
        raise Planned(plan.target, plan_steps(plan.kind, plan.steps, plan.phases))
    operation = new_operation(plan, principal)
    key = request_key(plan.kind, plan.target, plan.request)
    try:
        store.create_holding_cluster(operation, key)
    except Conflict as busy:
        holder_id = busy.extra.get("holder")
        if holder_id and store.request_key_of(holder_id) == key:
            holder = store.get(holder_id)
            if not OperationStatus(holder.status).terminal:
                return holder, False
        raise
    _start(store, runner, operation)
    return store.get(operation.id), True


def plan_steps(kind: str, steps: Sequence[PlanStepView], phases: Sequence[tuple[str, str]]) -> list[PlanStepView]:
    """The planner's steps, or, for a workflow that runs as a whole (a node action, a re-run phase),
    one step per phase it would run."""
    if steps:
        return list(steps)
    return [
        PlanStepView(action="run", target=title, reason=f"phase {name} of the {kind} workflow", phase=name)
        for name, title in phases
    ]


def _start(store: OperationStore, runner: WorkflowRunner, operation: OperationView) -> None:
    """Record the execution, then start it. Recorded after the start, the write could land on an operation
    whose execution had already ended and released the cluster (a workflow that fails at once), so a
    finished operation was written again after another had taken the cluster."""
    name = execution_name(operation)
    if not store.set_execution(operation.id, runner.execution_arn(operation.kind, name)):
        return  # cancelled before its workflow started: nothing is started for it
    try:
        runner.start(operation.kind, name, workflow_document(operation))
    except RetryableError as exc:
        store.finish(operation.id, OperationStatus.FAILED, error="WorkflowNotStarted", message=exc.message)
        raise


def retry(
    store: OperationStore, runner: WorkflowRunner, operation_id: str, principal: Principal, needed: Role
) -> OperationView:
    """Resume a FAILED or CANCELLED operation: phases that succeeded stay done, the rest run again."""
    if not principal.role.allows(needed):
        raise Forbidden(f"Retrying this operation needs the {Role(needed).value} role; you are {principal.role.value}.")
    operation = store.get(operation_id)
    if operation.status not in (OperationStatus.FAILED, OperationStatus.CANCELLED):
        raise Conflict(
            f"Operation {operation_id} is {operation.status}; only FAILED or CANCELLED operations can be retried.",
            details=[{"field": None, "rule": "retryable_status", "message": f"{operation_id} is {operation.status}"}],
        )
    names = [p.name for p in operation.phases]
    failed = next(
        (p.name for p in operation.phases if p.status not in (PhaseStatus.SUCCEEDED, PhaseStatus.SKIPPED)), None
    )
    failed_at = names.index(failed) if failed else len(names) - 1
    # A wait that failed because what it waited for failed resumes from the phase that started it.
    restart = names.index(RESUME_FROM.get(operation.kind, {}).get(failed or "", failed or names[-1]))
    # Phases from the restart through the failed one run again. A later phase can only have succeeded in
    # a parallel branch that did not need the failed one (provision-cluster's children): it stays done.
    phases = [
        p
        if p.status in (PhaseStatus.SUCCEEDED, PhaseStatus.SKIPPED) and not restart <= i <= failed_at
        else PhaseView(name=p.name, title=p.title)
        for i, p in enumerate(operation.phases)
    ]
    if principal.dry_run:
        again = [(p.name, p.title) for p in phases if p.status == PhaseStatus.PENDING]
        raise Planned(operation.target, plan_steps(operation.kind, (), again))
    resumed = operation.model_copy(
        update={
            "status": OperationStatus.PENDING,
            "phases": phases,
            "attempt": operation.attempt + 1,
            "error": None,
            "message": None,
            "updatedAt": now(),
        }
    )
    store.restart(resumed)
    _start(store, runner, resumed)
    return store.get(operation_id)


def cancel_plan(store: OperationStore, operation_id: str, principal: Principal, needed: Role) -> Plan:
    """What cancelling the operation does, after the checks the cancel itself makes (the role, 409 when it
    has already ended): stop its workflow's execution, and mark it CANCELLED."""
    if not principal.role.allows(needed):
        raise Forbidden(
            f"Cancelling this operation needs the {Role(needed).value} role; you are {principal.role.value}."
        )
    operation = store.get(operation_id)
    if OperationStatus(operation.status).terminal:
        raise Conflict(f"Operation {operation_id} is already {operation.status}.", holder=operation_id)
    running = next((p.name for p in operation.phases if p.status == PhaseStatus.RUNNING), None)
    state = f"{operation.status}" + (f" in phase {running}" if running else "")
    steps = []
    arn = store.execution_of(operation_id)
    if arn:
        steps.append(
            Step(
                "stop",
                f"Step Functions execution {arn.rsplit(':', 1)[-1]}",
                f"operation {operation_id} ({operation.kind}) is {state}; what its phases created is kept",
            )
        )
    steps.append(
        Step(
            "update",
            f"operation {operation_id}",
            f"{operation.status} becomes CANCELLED; retry resumes it from the phase that did not finish",
        )
    )
    return Plan(operation.target, tuple(steps))


def cancel(
    store: OperationStore,
    runner: WorkflowRunner,
    operation_id: str,
    principal: Principal,
    needed: Role,
    reason: str | None,
) -> OperationView:
    cancel_plan(store, operation_id, principal, needed)
    message = f"Cancelled by {principal.subject}" + (f": {reason}" if reason else "")
    arn = store.execution_of(operation_id)
    if arn:
        runner.stop(arn, message)
    if not store.finish(operation_id, OperationStatus.CANCELLED, error=None, message=message):
        ended = store.get(operation_id)
        if ended.status != OperationStatus.CANCELLED:  # it finished between the check and the cancel
            raise Conflict(f"Operation {operation_id} is already {ended.status}.", holder=operation_id)
    return store.get(operation_id)


@functools.cache
def kind_roles() -> dict[str, Role]:
    """The role each kind of operation needs, from the catalog route that starts it (the one source);
    retrying or cancelling one needs the same. Read on first use: the catalog holds every route's
    contracts, which the API's cold start imports only for the routes it serves (entrypoints/api/lazy_routes)."""
    from launchpod.contracts.catalog_ops import CATALOG

    roles: dict[str, Role] = {}
    for entry in CATALOG:
        for kind in entry.starts:
            assert entry.role is not None, entry.id
            known = roles.get(kind)
            roles[kind] = entry.role if known is None or entry.role.rank > known.rank else known
    return roles


# kind -> {wait phase: the phase to resume from when the wait failed}
RESUME_FROM: dict[str, dict[str, str]] = {
    "create-control-plane": {"WaitActive": "CreateCluster"},
    "create-hyperpod": {"WaitInService": "CreateHyperPod"},
    # A claim that never bound (or whose volume went missing) is applied again.
    "configure-storage": {"WaitBound": "ApplyVolume"},
    # provision-cluster holds its children's phases, so each child's wait resumes as it does alone.
    "provision-cluster": {"WaitActive": "CreateCluster", "WaitInService": "CreateHyperPod", "WaitBound": "ApplyVolume"},
    # Node actions: nodes that did not end well are acted on again.
    **{
        kind: {"WaitNodes": "StartAction"} for kind in ("reboot-nodes", "replace-nodes", "delete-nodes", "health-check")
    },
}


def role_for(kind: str) -> Role:
    """The role an operation of ``kind`` needs, to start, retry or cancel it."""
    return kind_roles()[kind]
