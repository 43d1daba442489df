"""Operations: list and read them, retry one from its failed phase, cancel one (planned first: a dry run
answers what it would stop), each with the role that the kind of operation needs (domain.operations.role_for,
from the catalog)."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.operations import NoopView, OperationListView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import operations as ops
from launchpod.runtime import wiring
from launchpod.usecases.ports import OperationLog
from launchpod.usecases.proposal import at_once


@dataclass(frozen=True)
class OperationPorts:
    operations: OperationLog
    workflows: ops.WorkflowRunner


def real() -> OperationPorts:
    """The deployed adapters (runtime.wiring)."""
    return OperationPorts(operations=wiring.operations(), workflows=wiring.workflows())


def list_operations(
    cluster: str | None, status: str | None, limit: int, cursor: str | None, *, ports: OperationPorts
) -> OperationListView:
    """Newest first, filtered by cluster and status; the token continues a listing."""
    items, token = ports.operations.page(target=cluster, status=status, limit=limit, cursor=cursor)
    return OperationListView(items=items, nextToken=token)


def get_operation(operation_id: str, *, ports: OperationPorts) -> OperationView:
    return ports.operations.get(operation_id)


def retry(operation_id: str, who: ops.Principal, *, ports: OperationPorts) -> OperationView:
    """Resume a FAILED or CANCELLED operation from its failed phase (409 for any other status)."""
    needed = ops.role_for(ports.operations.get(operation_id).kind)
    return ops.retry(ports.operations, ports.workflows, operation_id, who, needed)


def cancel(
    operation_id: str, who: ops.Principal, reason: str | None, dry_run: bool, *, ports: OperationPorts
) -> OperationView | NoopView | PlanView:
    """Stop the operation's workflow and mark it CANCELLED (409 when it has already ended, in a dry run too);
    a dry run answers the execution it would stop and stops nothing."""
    needed = ops.role_for(ports.operations.get(operation_id).kind)
    plan = ops.cancel_plan(ports.operations, operation_id, who, needed)
    return at_once(
        plan,
        dry_run,
        f"Operation {operation_id} has nothing to cancel; no changes.",
        lambda: ops.cancel(ports.operations, ports.workflows, operation_id, who, needed, reason),
    )
