"""Development environments (HyperPod Spaces): create, list, get, stop/start and delete; the writes answer
their plan on ``dryRun``. Each route parses, makes one use-case call (usecases.spaces) and dumps its answer."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import K8sName
from launchpod.contracts.spaces import (
    CreateSpaceInput,
    CreateSpaceRequest,
    DeleteSpaceView,
    SpaceListView,
    SpaceView,
    UpdateSpaceInput,
    UpdateSpaceRequest,
)
from launchpod.entrypoints.api.routing import (
    ClusterPath,
    ConfirmQuery,
    DryRunQuery,
    JsonBody,
    K8sNamePath,
    NamespaceQuery,
    Planned,
    input_of,
    json_response,
    route,
)
from launchpod.usecases import spaces

router = APIGatewayRouter()


@route(router, "create_space")
def create_space(
    name: ClusterPath, body: JsonBody[CreateSpaceRequest], dryRun: DryRunQuery = False
) -> Planned[SpaceView]:
    owner = router.context["principal"].subject
    request = input_of(CreateSpaceInput, body, name=name)
    return json_response(spaces.create(request, owner, dryRun, ports=spaces.real()))


@route(router, "list_spaces")
def list_spaces(name: ClusterPath, namespace: Annotated[K8sName | None, Query()] = None) -> SpaceListView:
    return spaces.list_spaces(name, namespace, ports=spaces.real())


@route(router, "get_space")
def get_space(name: ClusterPath, spaceName: K8sNamePath, namespace: NamespaceQuery = "default") -> SpaceView:
    return spaces.get(name, spaceName, namespace, ports=spaces.real())


@route(router, "update_space")
def update_space(
    name: ClusterPath,
    spaceName: K8sNamePath,
    body: JsonBody[UpdateSpaceRequest],
    namespace: NamespaceQuery = "default",
    dryRun: DryRunQuery = False,
) -> Planned[SpaceView]:
    request = input_of(UpdateSpaceInput, body, name=name, spaceName=spaceName, namespace=namespace)
    return json_response(spaces.update(request, dryRun, ports=spaces.real()))


@route(router, "delete_space")
def delete_space(
    name: ClusterPath,
    spaceName: K8sNamePath,
    namespace: NamespaceQuery = "default",
    confirm: ConfirmQuery = "",
    dryRun: DryRunQuery = False,
) -> Planned[DeleteSpaceView]:
    return json_response(spaces.delete(name, spaceName, namespace, confirm, dryRun, ports=spaces.real()))
