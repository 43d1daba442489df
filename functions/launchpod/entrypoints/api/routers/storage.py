"""A cluster's storage: configure (a workflow), list, delete (synchronous: two Kubernetes deletes, planned
first: 200 NOOP when already gone, ``dryRun`` answers the plan) and browse the objects of an S3 storage."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName, K8sName
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.storage import (
    ConfigureStorageRequest,
    DeleteStorageView,
    S3Prefix,
    StorageListView,
    StorageObjectListView,
)
from launchpod.entrypoints.api.routing import DryRunQuery, answer, json_response, older_spelling, one_spelling, route
from launchpod.usecases import storage

router = APIGatewayRouter()


@route(router, "configure_storage")
def configure_storage(
    name: Annotated[ClusterName, Path()],
    body: Annotated[ConfigureStorageRequest, Body()],
    dryRun: DryRunQuery = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    return answer(storage.configure(name, body, router.context["principal"], ports=storage.real()), dryRun)


@route(router, "list_storage")
def list_storage(name: Annotated[ClusterName, Path()]) -> StorageListView:
    return storage.list_storage(name, ports=storage.real())


@route(router, "delete_storage")
def delete_storage(
    name: Annotated[ClusterName, Path()],
    storageName: Annotated[K8sName, Path()],
    dryRun: DryRunQuery = False,
) -> Response[DeleteStorageView | NoopView | PlanView]:
    return json_response(storage.delete_storage(name, storageName, dryRun, ports=storage.real()))


@route(router, "browse_storage")
def browse_storage(
    name: Annotated[ClusterName, Path()],
    storageName: Annotated[K8sName, Path()],
    prefix: Annotated[S3Prefix | None, Query()] = None,
    nextToken: Annotated[str | None, Query(max_length=2048)] = None,
    continuationToken: Annotated[str | None, older_spelling("nextToken", max_length=2048)] = None,
) -> StorageObjectListView:
    cursor = one_spelling("nextToken", nextToken, "continuationToken", continuationToken)
    return storage.browse(name, storageName, prefix, cursor, ports=storage.real())
