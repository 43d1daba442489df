"""A cluster's nodes: the joined list and one node's detail, the HyperPod cluster's events, and the
node actions (reboot, replace, delete, deep health checks), each started as an operation
(usecases/nodes.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.nodes import (
    ClusterEventListView,
    DestructiveNodeActionRequest,
    EventLevel,
    EventResourceType,
    HealthCheckRequest,
    ListEventsInput,
    MoveNodesRequest,
    NodeActionRequest,
    NodeDetailView,
    NodeId,
    NodeListView,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, JsonBody, accepted, route
from launchpod.usecases import node_moves, nodes

router = APIGatewayRouter()


@route(router, "list_nodes")
def list_nodes(name: ClusterPath) -> NodeListView:
    return nodes.list_nodes(name, ports=nodes.real())


@route(router, "get_node")
def get_node(name: ClusterPath, nodeId: Annotated[NodeId, Path()]) -> NodeDetailView:
    return nodes.get_node(name, nodeId, ports=nodes.real())


@route(router, "list_cluster_events")
def list_cluster_events(
    name: ClusterPath,
    instanceGroup: Annotated[InstanceGroupName | None, Query()] = None,
    nodeId: Annotated[NodeId | None, Query()] = None,
    level: Annotated[EventLevel | None, Query()] = None,
    resourceType: Annotated[EventResourceType | None, Query()] = None,
    after: Annotated[datetime | None, Query()] = None,
    before: Annotated[datetime | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    nextToken: Annotated[str | None, Query(max_length=8192)] = None,
    details: Annotated[bool, Query()] = True,
) -> ClusterEventListView:
    query = ListEventsInput(
        name=name,
        instanceGroup=instanceGroup,
        nodeId=nodeId,
        level=level,
        resourceType=resourceType,
        after=after,
        before=before,
        limit=limit,
        nextToken=nextToken,
        details=details,
    )
    return nodes.list_events(query, ports=nodes.real())


@route(router, "reboot_nodes")
def reboot_nodes(name: ClusterPath, body: JsonBody[NodeActionRequest]) -> Response[OperationAcceptedView]:
    return accepted(nodes.reboot(name, body, router.context["principal"], ports=nodes.real()))


@route(router, "replace_nodes")
def replace_nodes(name: ClusterPath, body: JsonBody[DestructiveNodeActionRequest]) -> Response[OperationAcceptedView]:
    return accepted(nodes.replace(name, body, router.context["principal"], ports=nodes.real()))


@route(router, "delete_nodes")
def delete_nodes(name: ClusterPath, body: JsonBody[DestructiveNodeActionRequest]) -> Response[OperationAcceptedView]:
    return accepted(nodes.delete(name, body, router.context["principal"], ports=nodes.real()))


@route(router, "start_health_check")
def start_health_check(name: ClusterPath, body: JsonBody[HealthCheckRequest]) -> Response[OperationAcceptedView]:
    return accepted(nodes.health_check(name, body, router.context["principal"], ports=nodes.real()))


@route(router, "move_nodes")
def move_nodes(name: ClusterPath, body: JsonBody[MoveNodesRequest]) -> Response[OperationAcceptedView]:
    return accepted(node_moves.move(name, body, router.context["principal"], ports=node_moves.real()))
