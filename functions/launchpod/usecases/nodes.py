"""A cluster's nodes as the nodes and diagnostics routes read them: HyperPod's list joined with the
Kubernetes Nodes and pods. A plain move from the nodes router: it reads its adapters through wiring."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from launchpod.adapters.k8s import listing
from launchpod.contracts.nodes import NodeCondition, NodeDetailView, NodeEventView, NodeListView, NodeView
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import LaunchpodError, NotFound
from launchpod.domain.nodes import views
from launchpod.runtime import wiring


def hyperpod_of(name: str) -> dict[str, Any]:
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


def list_nodes(name: str) -> NodeListView:
    """The cluster's HyperPod nodes joined with their Kubernetes Nodes and pods, by group then node id."""
    cluster = hyperpod_of(name)
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


def get_node(name: str, nodeId: str) -> NodeDetailView:
    """One node as SageMaker describes it, joined with its Kubernetes Node, pods, conditions and events."""
    cluster = hyperpod_of(name)
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
