"""A cluster's nodes: the joined list and one node's detail, the HyperPod cluster's events, and the
node actions (reboot, replace, delete, deep health checks), each started as an operation."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import listing
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
    NodeCondition,
    NodeDetailView,
    NodeEventView,
    NodeId,
    NodeListView,
    NodeView,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput, LaunchpodError, NotFound
from launchpod.domain.nodes import actions, views
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring

router = APIGatewayRouter()


def _hyperpod(name: str) -> dict[str, Any]:
    found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    return found


def _kube(name: str) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The cluster's Nodes and its pods by node; empty while its Kubernetes API cannot be read."""
    try:
        return listing.items(name, "Node"), views.pods_by_node(listing.items(name, "Pod"))
    except LaunchpodError:
        return [], {}


@route(router, "list_nodes")
def list_nodes(name: Annotated[ClusterName, Path()]) -> NodeListView:
    cluster = _hyperpod(name)
    capacity = views.capacity_types(cluster)
    summaries = wiring.sagemaker().list_nodes(hyperpod.hyperpod_name(name))
    nodes, pods = _kube(name)
    kube = views.by_instance(nodes)
    items = []
    for s in summaries:
        k = kube.get(s["InstanceId"])
        node_name = ((k or {}).get("metadata") or {}).get("name")
        items.append(
            NodeView(
                **views.node_view(
                    s, k, pods.get(node_name, []) if node_name else [], capacity.get(s["InstanceGroupName"])
                )
            )
        )
    items.sort(key=lambda n: (n.instanceGroup, n.nodeId))
    return NodeListView(cluster=name, items=items)


@route(router, "get_node")
def get_node(name: Annotated[ClusterName, Path()], nodeId: Annotated[NodeId, Path()]) -> NodeDetailView:
    cluster = _hyperpod(name)
    details = wiring.sagemaker().describe_node(hyperpod.hyperpod_name(name), nodeId)
    if details is None:
        raise NotFound(f"{name} has no node {nodeId}; list its nodes with GET /api/clusters/{name}/nodes.")
    nodes, pods = _kube(name)
    kube = views.by_instance(nodes).get(nodeId)
    node_name = ((kube or {}).get("metadata") or {}).get("name")
    try:
        events = listing.items(name, "Event")
    except LaunchpodError:
        events = []
    view = views.node_view(
        details,
        kube,
        pods.get(node_name, []) if node_name else [],
        views.capacity_types(cluster).get(details.get("InstanceGroupName", "")),
        details,
    )
    return NodeDetailView(
        **view,
        privateIp=details.get("PrivatePrimaryIp"),
        privateDnsName=details.get("PrivateDnsHostname"),
        lastSoftwareUpdateTime=details.get("LastSoftwareUpdateTime"),
        imageReleaseVersion=details.get("CurrentImageReleaseVersion"),
        conditions=[NodeCondition.model_validate(c) for c in views.conditions_of(kube)],
        events=[NodeEventView.model_validate(e) for e in views.node_events(events, node_name, nodeId)],
        hyperpod={k: v.isoformat() if isinstance(v, datetime) else v for k, v in details.items()},
    )


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
    _hyperpod(name)
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
    cluster = _hyperpod(name)
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
    groups = {g["InstanceGroupName"] for g in _hyperpod(name).get("InstanceGroups", [])}
    unknown = sorted({t.instanceGroup for t in body.targets} - groups)
    if unknown:
        raise InvalidInput(
            f"{name} has no instance group {', '.join(unknown)}; it has {', '.join(sorted(groups)) or 'none'}.",
            field="body.targets",
            rule="known_instance_group",
        )
    return _start(actions.HEALTH_CHECK, name, body.model_dump(mode="json"))
