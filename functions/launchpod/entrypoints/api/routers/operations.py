"""Operations: list, read, retry from the failed phase, cancel (``dryRun`` answers what it would stop)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic.json_schema import SkipJsonSchema

from launchpod.contracts.common import ClusterName, OperationId
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationStatus,
    OperationView,
)
from launchpod.entrypoints.api.routing import DryRunQuery, NextTokenQuery, Planned, accepted, json_response, route
from launchpod.usecases import operations

router = APIGatewayRouter()


@route(router, "list_operations")
def list_operations(
    cluster: Annotated[ClusterName | None, Query()] = None,
    status: Annotated[OperationStatus | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    nextToken: NextTokenQuery = None,
) -> OperationListView:
    return operations.list_operations(
        cluster, status.value if status else None, limit, nextToken, ports=operations.real()
    )


@route(router, "get_operation")
def get_operation(operationId: Annotated[OperationId, Path()]) -> OperationView:
    return operations.get_operation(operationId, ports=operations.real())


@route(router, "retry_operation")
def retry_operation(operationId: Annotated[OperationId, Path()]) -> Response[OperationAcceptedView]:
    operation = operations.retry(operationId, router.context["principal"], ports=operations.real())
    return accepted(operation)


@route(router, "cancel_operation")
def cancel_operation(
    operationId: Annotated[OperationId, Path()],
    body: Annotated[CancelOperationRequest | SkipJsonSchema[None], Body()] = None,
    dryRun: DryRunQuery = False,
) -> Planned[OperationView]:
    reason = body.reason if body else None
    who = router.context["principal"]
    return json_response(operations.cancel(operationId, who, reason, dryRun, ports=operations.real()))
