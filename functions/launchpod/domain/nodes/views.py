"""One node as a platform engineer looks at it: HyperPod's instance joined with its Kubernetes Node
and the pods on it. Pure functions over what the adapters read."""

from __future__ import annotations

from typing import Any

from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.nodes.hyperpod_event import ClusterEvent, ClusterEventDetails
from launchpod.domain.nodes.hyperpod_node import HyperPodNode, NodeDetails

HEALTH_PREFIX = "sagemaker.amazonaws.com/"
HEALTH_LABEL = HEALTH_PREFIX + "node-health-status"
DEEP_HEALTH_LABEL = HEALTH_PREFIX + "deep-health-check-status"
GROUP_LABEL = HEALTH_PREFIX + "instance-group-name"
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU = "nvidia.com/gpu"
_DONE = ("Succeeded", "Failed")


def instance_of(node: dict[str, Any]) -> str | None:
    """The EC2 instance id behind a Kubernetes Node: its providerID aws:///<zone>/<instance id>."""
    provider = str((node.get("spec") or {}).get("providerID") or "")
    tail = provider.rpartition("/")[2]
    if tail.startswith("i-"):
        return tail
    name = str((node.get("metadata") or {}).get("name") or "")
    return name.removeprefix("hyperpod-") if name.startswith("hyperpod-i-") else None


def by_instance(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {iid: n for n in nodes if (iid := instance_of(n))}


def _quantity(value: Any) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


def pod_gpus(pod: dict[str, Any], resource: str = GPU) -> int:
    """The GPUs a pod holds. A container that sets only a limit for an extended resource requests that limit
    (Kubernetes "Manage resources for containers": requests default to limits), so a limit counts too."""
    containers = (pod.get("spec") or {}).get("containers") or []
    total = 0
    for c in containers:
        resources = c.get("resources") or {}
        asked = (resources.get("requests") or {}).get(resource)
        total += _quantity(asked if asked is not None else (resources.get("limits") or {}).get(resource, 0))
    return total


def gpus_allocatable(node: dict[str, Any] | None, resource: str = GPU) -> int:
    """The node's allocatable GPUs (or another extended resource: a MIG partition, nvidia.com/mig-<profile>)."""
    return _quantity((((node or {}).get("status") or {}).get("allocatable") or {}).get(resource, 0))


def running(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods that still hold their resources (not Succeeded or Failed)."""
    return [p for p in pods if ((p.get("status") or {}).get("phase")) not in _DONE]


def pods_by_node(pods: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            out.setdefault(node, []).append(pod)
    return out


def capacity_types(cluster: HyperPodCluster | None) -> dict[str, str]:
    """Instance group -> Spot or OnDemand, from DescribeCluster's CapacityRequirements."""
    return {g.name: "Spot" if g.spot else "OnDemand" for g in (cluster.instance_groups if cluster else ())}


def node_view(
    summary: HyperPodNode,
    kube: dict[str, Any] | None,
    pods: list[dict[str, Any]],
    capacity: str | None,
    details: NodeDetails | None = None,
) -> dict[str, Any]:
    """The fields of NodeView for one HyperPod node (``summary`` from ListClusterNodes)."""
    meta = (kube or {}).get("metadata") or {}
    labels: dict[str, str] = meta.get("labels") or {}
    spec = (kube or {}).get("spec") or {}
    conditions = ((kube or {}).get("status") or {}).get("conditions") or []
    ready = next((c.get("status") == "True" for c in conditions if c.get("type") == "Ready"), None)
    health = {k: v for k, v in labels.items() if k.startswith(HEALTH_PREFIX) and k != GROUP_LABEL}
    return {
        "nodeId": summary.node_id,
        "instanceGroup": summary.group,
        "instanceType": summary.instance_type,
        "availabilityZone": labels.get(ZONE_LABEL) or (details.zone if details else None),
        "capacityType": (details.capacity_type if details else None) or capacity,
        "instanceStatus": summary.status or "NotFound",
        "instanceMessage": summary.message or None,
        "launchTime": summary.launch_time,
        "kubernetesNode": meta.get("name"),
        "ready": ready if kube else None,
        "healthStatus": labels.get(HEALTH_LABEL),
        "deepHealthCheckStatus": labels.get(DEEP_HEALTH_LABEL),
        "faultTypes": sorted(v for k, v in health.items() if "fault-type" in k),
        "healthLabels": health,
        "taints": [
            {"key": t["key"], "value": t.get("value"), "effect": t.get("effect", "")} for t in spec.get("taints") or []
        ],
        "unschedulable": bool(spec.get("unschedulable")),
        "gpusAllocatable": gpus_allocatable(kube),
        "gpusAllocated": sum(pod_gpus(p) for p in running(pods)),
        "pods": [
            {
                "namespace": (p.get("metadata") or {}).get("namespace", "default"),
                "name": (p.get("metadata") or {}).get("name", ""),
                "phase": (p.get("status") or {}).get("phase"),
                "gpus": pod_gpus(p),
            }
            for p in sorted(pods, key=lambda p: ((p.get("metadata") or {}).get("namespace", ""), p["metadata"]["name"]))
        ],
    }


def node_events(events: list[dict[str, Any]], node_name: str | None, node_id: str) -> list[dict[str, Any]]:
    """Kubernetes events whose involved object is the node (by Node name or instance id), newest first."""
    names = {n for n in (node_name, node_id) if n}
    mine = [e for e in events if ((e.get("involvedObject") or {}).get("name")) in names]
    mine.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""), reverse=True)
    return [
        {
            "type": e.get("type"),
            "reason": e.get("reason"),
            "message": e.get("message"),
            "count": e.get("count"),
            "lastTimestamp": str(e.get("lastTimestamp") or e.get("eventTime") or "") or None,
        }
        for e in mine
    ]


def conditions_of(kube: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {
            "type": c.get("type", ""),
            "status": c.get("status", "Unknown"),
            "reason": c.get("reason"),
            "message": c.get("message"),
            "lastTransitionTime": c.get("lastTransitionTime"),
        }
        for c in (((kube or {}).get("status") or {}).get("conditions") or [])
    ]


def event_view(summary: ClusterEvent, detail: ClusterEventDetails | None) -> dict[str, Any]:
    """ListClusterEvents' summary with DescribeClusterEvent's metadata (the failure message EventBridge omits:
    the last part's that has one)."""
    return {
        "eventId": summary.event_id,
        "time": summary.time,
        "level": summary.level,
        "resourceType": summary.resource_type,
        "instanceGroup": summary.group,
        "nodeId": summary.node_id,
        "description": (detail.description if detail else None) or summary.description,
        "failureMessage": detail.failure_messages[-1] if detail and detail.failure_messages else None,
        "metadata": detail.metadata if detail else None,
    }
