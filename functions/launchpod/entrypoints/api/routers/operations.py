"""Operations: list, read, retry from the failed phase, cancel."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName, OperationId
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationStatus,
    OperationView,
)
from launchpod.domain import operations as ops
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring

router = APIGatewayRouter()


@route(router, "list_operations")
def list_operations(
    cluster: Annotated[ClusterName | None, Query()] = None,
    status: Annotated[OperationStatus | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    nextToken: Annotated[str | None, Query(max_length=2048)] = None,
) -> OperationListView:
    items, token = wiring.operations().page(
        target=cluster, status=status.value if status else None, limit=limit, cursor=nextToken
    )
    return OperationListView(items=items, nextToken=token)


@route(router, "get_operation")
def get_operation(operationId: Annotated[OperationId, Path()]) -> OperationView:
    return wiring.operations().get(operationId)


@route(router, "retry_operation")
def retry_operation(operationId: Annotated[OperationId, Path()]) -> Response[OperationAcceptedView]:
    store = wiring.operations()
    needed = ops.role_for(store.get(operationId).kind)
    operation = ops.retry(store, wiring.workflows(), operationId, router.context["principal"], needed)
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)


@route(router, "cancel_operation")
def cancel_operation(
    operationId: Annotated[OperationId, Path()],
    body: Annotated[CancelOperationRequest | None, Body()] = None,
) -> OperationView:
    store = wiring.operations()
    needed = ops.role_for(store.get(operationId).kind)
    reason = body.reason if body else None
    return ops.cancel(store, wiring.workflows(), operationId, router.context["principal"], needed, reason)
