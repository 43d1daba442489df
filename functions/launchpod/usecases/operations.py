"""Operations: list and read them, retry one from its failed phase, cancel one, each with the role that the
kind of operation needs (domain.operations.role_for, from the catalog)."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.operations import OperationListView, OperationView
from launchpod.domain import operations as ops
from launchpod.runtime import wiring
from launchpod.usecases.ports import OperationLog


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


def cancel(operation_id: str, who: ops.Principal, reason: str | None, *, ports: OperationPorts) -> OperationView:
    """Stop the operation's workflow and mark it CANCELLED (409 when it has already ended)."""
    needed = ops.role_for(ports.operations.get(operation_id).kind)
    return ops.cancel(ports.operations, ports.workflows, operation_id, who, needed, reason)
