"""A cluster's nodes: the joined list and one node's detail, the HyperPod cluster's events, and the
node actions (reboot, replace, delete, deep health checks), each started as an operation."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName
from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.nodes import (
    ClusterEventListView,
    ClusterEventView,
    DestructiveNodeActionRequest,
    EventLevel,
    EventResourceType,
    HealthCheckRequest,
    NodeActionRequest,
    NodeDetailView,
    NodeId,
    NodeListView,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.nodes import actions, views
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.usecases import nodes

router = APIGatewayRouter()


@route(router, "list_nodes")
def list_nodes(name: Annotated[ClusterName, Path()]) -> NodeListView:
    return nodes.list_nodes(name)


@route(router, "get_node")
def get_node(name: Annotated[ClusterName, Path()], nodeId: Annotated[NodeId, Path()]) -> NodeDetailView:
    return nodes.get_node(name, nodeId)


@route(router, "list_cluster_events")
def list_cluster_events(
    name: Annotated[ClusterName, Path()],
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
    nodes.hyperpod_of(name)
    filters: dict[str, Any] = {
        key: value
        for key, value in (
            ("InstanceGroupName", instanceGroup),
            ("NodeId", nodeId),
            ("ResourceType", resourceType),
            ("EventTimeAfter", after),
            ("EventTimeBefore", before),
        )
        if value is not None
    }
    sm, cluster = wiring.sagemaker(), hyperpod.hyperpod_name(name)
    items: list[ClusterEventView] = []
    token = nextToken
    # ListClusterEvents has no level filter: pages are read until ``limit`` events at that level are found.
    for _ in range(10):
        page = sm.list_events(cluster, {**filters, "SortOrder": "Descending"}, limit, token)
        for summary in page.get("Events", []):
            if level and summary.get("EventLevel") != level:
                continue
            detail = sm.describe_event(cluster, summary["EventId"]) if details else None
            items.append(ClusterEventView(**views.event_view(summary, detail)))
        token = page.get("NextToken")
        if not token or len(items) >= limit or not level:
            break
    return ClusterEventListView(cluster=name, items=items[:limit], nextToken=token)


def _start(kind: str, name: str, request: dict[str, Any]) -> Response[OperationAcceptedView]:
    cluster = nodes.hyperpod_of(name)
    if cluster.get("ClusterStatus") in ("Creating", "Deleting", "Failed"):
        raise Conflict(f"The HyperPod cluster {name} is {cluster['ClusterStatus']}; its nodes cannot be acted on now.")
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), actions.plan(kind, name, request), router.context["principal"]
    )
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)


def _acknowledged(body: DestructiveNodeActionRequest) -> None:
    if not body.acknowledgeDataLoss:
        raise InvalidInput(actions.DATA_LOSS, field="body.acknowledgeDataLoss", rule="acknowledge_data_loss")


@route(router, "reboot_nodes")
def reboot_nodes(
    name: Annotated[ClusterName, Path()], body: Annotated[NodeActionRequest, Body()]
) -> Response[OperationAcceptedView]:
    return _start(actions.REBOOT, name, body.model_dump(mode="json"))


@route(router, "replace_nodes")
def replace_nodes(
    name: Annotated[ClusterName, Path()], body: Annotated[DestructiveNodeActionRequest, Body()]
) -> Response[OperationAcceptedView]:
    _acknowledged(body)
    return _start(actions.REPLACE, name, body.model_dump(mode="json"))


@route(router, "delete_nodes")
def delete_nodes(
    name: Annotated[ClusterName, Path()], body: Annotated[DestructiveNodeActionRequest, Body()]
) -> Response[OperationAcceptedView]:
    _acknowledged(body)
    return _start(actions.DELETE, name, body.model_dump(mode="json"))


@route(router, "start_health_check")
def start_health_check(
    name: Annotated[ClusterName, Path()], body: Annotated[HealthCheckRequest, Body()]
) -> Response[OperationAcceptedView]:
    groups = {g["InstanceGroupName"] for g in nodes.hyperpod_of(name).get("InstanceGroups", [])}
    unknown = sorted({t.instanceGroup for t in body.targets} - groups)
    if unknown:
        raise InvalidInput(
            f"{name} has no instance group {', '.join(unknown)}; it has {', '.join(sorted(groups)) or 'none'}.",
            field="body.targets",
            rule="known_instance_group",
        )
    return _start(actions.HEALTH_CHECK, name, body.model_dump(mode="json"))
