"""Operations: following, retrying and cancelling what a mutating route started."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.catalog_ops.entry import CatalogEntry
from launchpod.contracts.common import ClusterName, Contract, OperationId, Role
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationStatus,
    OperationView,
)


class OperationRef(Contract):
    operationId: OperationId


class CancelOperationInput(CancelOperationRequest):
    operationId: OperationId


class ListOperationsInput(Contract):
    cluster: ClusterName | None = Field(default=None, description="only operations on this cluster")
    status: OperationStatus | None = None
    limit: int = Field(default=50, ge=1, le=200)
    nextToken: str | None = Field(default=None, max_length=2048, description="the nextToken of the previous page")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_operations",
        "GET",
        "/api/operations",
        "List operations, newest first, optionally by cluster and status, a page at a time (nextToken).",
        ListOperationsInput,
        OperationListView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "get_operation",
        "GET",
        "/api/operations/{operationId}",
        "Get an operation with every phase: status, times, attempts and errors. Decides completion.",
        OperationRef,
        OperationView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "retry_operation",
        "POST",
        "/api/operations/{operationId}/retry",
        "Resume a FAILED or CANCELLED operation from the phase that did not finish. Needs the role of the"
        " route that started it (admin for cluster operations).",
        OperationRef,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        tags=("operations",),
    ),
    CatalogEntry(
        "cancel_operation",
        "POST",
        "/api/operations/{operationId}/cancel",
        "Stop a running operation, effective at once: it is CANCELLED when the call returns. Resources already"
        " created are kept; retry resumes it. 409 when it has already ended. dryRun true answers what it would"
        " stop. Needs the role of the route that started it (admin for cluster operations).",
        CancelOperationInput,
        OperationView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("operations",),
    ),
)
