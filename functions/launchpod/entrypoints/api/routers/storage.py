"""A cluster's storage: configure (a workflow), list, delete (synchronous: two Kubernetes deletes, planned
first: 200 NOOP when already gone, ``dryRun`` answers the plan) and browse the objects of an S3 storage."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.operations import OperationAcceptedView
from launchpod.contracts.storage import (
    ConfigureStorageRequest,
    DeleteStorageView,
    S3Prefix,
    StorageListView,
    StorageObjectListView,
)
from launchpod.entrypoints.api.routing import (
    ClusterPath,
    DryRunQuery,
    JsonBody,
    K8sNamePath,
    NextTokenQuery,
    Planned,
    answer,
    json_response,
    older_spelling,
    one_spelling,
    route,
)
from launchpod.usecases import storage

router = APIGatewayRouter()


@route(router, "configure_storage")
def configure_storage(
    name: ClusterPath, body: JsonBody[ConfigureStorageRequest], dryRun: DryRunQuery = False
) -> Planned[OperationAcceptedView]:
    return answer(storage.configure(name, body, router.context["principal"], ports=storage.real()), dryRun)


@route(router, "list_storage")
def list_storage(name: ClusterPath) -> StorageListView:
    return storage.list_storage(name, ports=storage.real())


@route(router, "delete_storage")
def delete_storage(
    name: ClusterPath, storageName: K8sNamePath, dryRun: DryRunQuery = False
) -> Planned[DeleteStorageView]:
    return json_response(storage.delete_storage(name, storageName, dryRun, ports=storage.real()))


@route(router, "browse_storage")
def browse_storage(
    name: ClusterPath,
    storageName: K8sNamePath,
    prefix: Annotated[S3Prefix | None, Query()] = None,
    nextToken: NextTokenQuery = None,
    continuationToken: Annotated[str | None, older_spelling("nextToken", max_length=2048)] = None,
) -> StorageObjectListView:
    cursor = one_spelling("nextToken", nextToken, "continuationToken", continuationToken)
    return storage.browse(name, storageName, prefix, cursor, ports=storage.real())
