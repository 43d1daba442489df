"""A cluster's nodes: HyperPod's list joined with the Kubernetes Nodes and pods, one node's detail, the
HyperPod cluster's events, and the node actions (reboot, replace, delete, deep health checks) started as
operations, by the nodes routes and by the remediation ladder alike. The ports are only the calls made."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from launchpod.contracts.nodes import (
    ClusterEventListView,
    ClusterEventView,
    DestructiveNodeActionRequest,
    HealthCheckRequest,
    ListEventsInput,
    NodeActionRequest,
    NodeCondition,
    NodeDetailView,
    NodeEventView,
    NodeListView,
    NodeView,
)
from launchpod.contracts.operations import OperationView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import Conflict, InvalidInput, LaunchpodError, NotFound, next_step
from launchpod.domain.nodes import actions, views
from launchpod.domain.nodes.hyperpod_event import EventFilter
from launchpod.runtime import wiring
from launchpod.usecases.ports import HyperPodNodes, KubeLister


@dataclass(frozen=True)
class NodePorts:
    sagemaker: HyperPodNodes
    kube: KubeLister
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner


def real() -> NodePorts:
    """The deployed adapters (runtime.wiring)."""
    return NodePorts(
        sagemaker=wiring.sagemaker(),
        kube=wiring.kube_listing().items,
        operations=wiring.operations(),
        workflows=wiring.workflows(),
    )


def hyperpod_of(name: str, *, ports: NodePorts) -> HyperPodCluster:
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise hyperpod.no_hyperpod(name)
    return found


def _kube(name: str, ports: NodePorts) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The cluster's Nodes and its pods by node; empty while its Kubernetes API cannot be read."""
    try:
        return ports.kube(name, "Node"), views.pods_by_node(ports.kube(name, "Pod"))
    except LaunchpodError:
        return [], {}


def list_nodes(name: str, *, ports: NodePorts) -> NodeListView:
    """The cluster's HyperPod nodes joined with their Kubernetes Nodes and pods, by group then node id; the
    three are read side by side."""
    with ContextPool(max_workers=3, thread_name_prefix="nodes") as pool:
        described = pool.submit(hyperpod_of, name, ports=ports)
        listed = pool.submit(ports.sagemaker.list_nodes, hyperpod.hyperpod_name(name))
        in_kube = pool.submit(_kube, name, ports)
        cluster = described.result()  # no HyperPod cluster: its error, whatever the others found
        summaries = listed.result()
        nodes, pods = in_kube.result()
    capacity = views.capacity_types(cluster)
    kube = views.by_instance(nodes)
    items = []
    for s in summaries:
        k = kube.get(s.node_id)
        node_name = ((k or {}).get("metadata") or {}).get("name")
        items.append(
            NodeView(**views.node_view(s, k, pods.get(node_name, []) if node_name else [], capacity.get(s.group)))
        )
    items.sort(key=lambda n: (n.instanceGroup, n.nodeId))
    return NodeListView(cluster=name, items=items)


def get_node(name: str, nodeId: str, *, ports: NodePorts) -> NodeDetailView:
    """One node as SageMaker describes it, joined with its Kubernetes Node, pods, conditions and events."""
    cluster = hyperpod_of(name, ports=ports)
    details = ports.sagemaker.describe_node(hyperpod.hyperpod_name(name), nodeId)
    if details is None:
        raise NotFound(
            f"{name} has no node {nodeId}; choose one of its nodes.",
            details=[next_step(f"GET /api/clusters/{name}/nodes")],
        )
    nodes, pods = _kube(name, ports)
    kube = views.by_instance(nodes).get(nodeId)
    node_name = ((kube or {}).get("metadata") or {}).get("name")
    try:
        events = ports.kube(name, "Event")
    except LaunchpodError:
        events = []
    view = views.node_view(
        details,
        kube,
        pods.get(node_name, []) if node_name else [],
        views.capacity_types(cluster).get(details.group),
        details,
    )
    return NodeDetailView(
        **view,
        privateIp=details.private_ip,
        privateDnsName=details.private_dns,
        lastSoftwareUpdateTime=details.last_software_update,
        imageReleaseVersion=details.image_release_version,
        conditions=[NodeCondition.model_validate(c) for c in views.conditions_of(kube)],
        events=[NodeEventView.model_validate(e) for e in views.node_events(events, node_name, nodeId)],
        hyperpod={k: v.isoformat() if isinstance(v, datetime) else v for k, v in details.described.items()},
    )


def list_events(query: ListEventsInput, *, ports: NodePorts) -> ClusterEventListView:
    """HyperPod's events of the cluster, newest first, each with its details when asked; a 409 saying why for a
    cluster HyperPod keeps none for (no continuous provisioning)."""
    name = query.name
    if not hyperpod.keeps_events(hyperpod_of(name, ports=ports)):
        raise Conflict(hyperpod.events_unavailable(name))
    filters = EventFilter(
        group=query.instanceGroup,
        node_id=query.nodeId,
        resource_type=query.resourceType,
        after=query.after,
        before=query.before,
    )
    sm, cluster, limit, level = ports.sagemaker, hyperpod.hyperpod_name(name), query.limit, query.level
    items: list[ClusterEventView] = []
    token = query.nextToken
    # ListClusterEvents has no level filter: pages are read until ``limit`` events at that level are found.
    for _ in range(10):
        page = sm.list_events(cluster, filters, limit, token)
        for summary in page.events:
            if level and summary.level != level:
                continue
            detail = sm.describe_event(cluster, summary.event_id) if query.details else None
            items.append(ClusterEventView(**views.event_view(summary, detail)))
        token = page.next_token
        if not token or len(items) >= limit or not level:
            break
    return ClusterEventListView(cluster=name, items=items[:limit], nextToken=token)


# ---------------------------------------------------------------------------- node actions


def submit_action(
    kind: str, name: str, request: dict[str, Any], who: ops.Principal, *, ports: NodePorts
) -> OperationView:
    """Record and start a node action (``actions.KINDS``); the ladder submits its commands through here."""
    operation, _ = ops.submit(ports.operations, ports.workflows, actions.plan(kind, name, request), who)
    return operation


def _start(kind: str, name: str, request: dict[str, Any], who: ops.Principal, ports: NodePorts) -> OperationView:
    cluster = hyperpod_of(name, ports=ports)
    if cluster.status in ("Creating", "Deleting", "Failed"):
        raise Conflict(f"The HyperPod cluster {name} is {cluster.status}; its nodes cannot be acted on now.")
    if request.get("nodeIds") or any(t.get("nodeIds") for t in request.get("targets") or []):
        actions.check_known(request, ports.sagemaker.list_nodes(hyperpod.hyperpod_name(name)))
    return submit_action(kind, name, request, who, ports=ports)


def _acknowledged(body: DestructiveNodeActionRequest) -> None:
    if not body.acknowledgeDataLoss:
        raise InvalidInput(actions.DATA_LOSS, field="body.acknowledgeDataLoss", rule="acknowledge_data_loss")


def reboot(name: str, body: NodeActionRequest, who: ops.Principal, *, ports: NodePorts) -> OperationView:
    return _start(actions.REBOOT, name, body.model_dump(mode="json"), who, ports)


def replace(name: str, body: DestructiveNodeActionRequest, who: ops.Principal, *, ports: NodePorts) -> OperationView:
    """Replace nodes; only once the caller acknowledged that their instance volumes are lost."""
    _acknowledged(body)
    return _start(actions.REPLACE, name, body.model_dump(mode="json"), who, ports)


def delete(name: str, body: DestructiveNodeActionRequest, who: ops.Principal, *, ports: NodePorts) -> OperationView:
    """Delete nodes; only once the caller acknowledged that their instance volumes are lost."""
    _acknowledged(body)
    return _start(actions.DELETE, name, body.model_dump(mode="json"), who, ports)


def health_check(name: str, body: HealthCheckRequest, who: ops.Principal, *, ports: NodePorts) -> OperationView:
    """Deep health checks of the targets, each of an instance group the cluster has (422 naming the others)."""
    groups = {g.name for g in hyperpod_of(name, ports=ports).instance_groups}
    unknown = sorted({t.instanceGroup for t in body.targets} - groups)
    if unknown:
        raise InvalidInput(
            f"{name} has no instance group {', '.join(unknown)}; it has {', '.join(sorted(groups)) or 'none'}.",
            field="body.targets",
            rule="known_instance_group",
        )
    return _start(actions.HEALTH_CHECK, name, body.model_dump(mode="json"), who, ports)
