"""The Kubernetes Nodes HyperPod registers in the EKS cluster it is attached to: their labels, taints,
capacity and readiness (``node_object``), and the sink that receives each EKS cluster's full desired Node
list when it changes (``set_node_sink``, ``kube_node_sink`` for ``sandbox.kube.KubeFleet``)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker import health_agent, mig
from sandbox.aws.sagemaker.common import (
    CLUSTER_NAME_LABEL,
    COMPUTE_TYPE_LABEL,
    DEEP_HEALTH_LABEL,
    EKS_ARN,
    GROUP_LABEL,
    HEALTH_LABEL,
    LOCK,
    NODE_PREFIX,
    drop_empty,
    log,
)
from sandbox.aws.sagemaker.instances import shape_of
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode
from sandbox.aws.state import STATE
from sandbox.controllers.images import INTERNET_ANNOTATION


@dataclass
class NodeSinkState:
    """Where each EKS cluster's HyperPod Nodes go, and what was last sent."""

    node_sink: Callable[[str, list[dict[str, Any]]], None] | None = None  # where Node lists go
    # (account, region, EKS cluster) -> the last list sent, compared whole with the next (nothing changes a list
    # once built: the sink stores copies); a JSON digest of every list, ten times a second, cost more than the lists
    pushed: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)


def _state() -> NodeSinkState:
    return STATE.of(NodeSinkState)


def set_node_sink(fn: Callable[[str, list[dict[str, Any]]], None] | None) -> None:
    """Call ``fn(eks_cluster_name, nodes)`` whenever the HyperPod Nodes of an EKS cluster change."""
    with LOCK:
        _state().node_sink = fn
        _state().pushed.clear()


def _health(cluster: HyperPodCluster, node: HyperPodNode) -> tuple[str, str | None, bool]:
    """(node-health-status label, deep-health-check-status label or None, Ready)."""
    status, _ = node.state()
    deep = None
    if node.deep_health_checks:
        deep = {"DeepHealthCheckInProgress": "InProgress", "Failure": "Failed"}.get(status, "Passed")
    if status == "Failure":
        return "UnschedulablePendingReplacement", deep, False
    if status == "Pending" and node.kind == "reboot":
        return "UnschedulablePendingReboot", deep, False
    if status in {"DeepHealthCheckInProgress", "SystemUpdating"}:
        return "Unschedulable", deep, True
    return "Schedulable", deep, True


def _visible(node: HyperPodNode) -> bool:
    """Whether the instance has joined the EKS cluster (it joins once its lifecycle setup is done)."""
    status, _ = node.state()
    if status == "ShuttingDown":  # drained and deregistered before the instance terminates
        return False
    if status in ("DetachInProgress", "AttachInProgress"):
        # MoveClusterNodes replaces the root volume and the node rejoins with the target group's lifecycle
        # scripts (API reference, MoveClusterNodes): it is no Node of the EKS cluster in between.
        return False
    return status != "Pending" or node.kind == "reboot"


# Instance types HyperPod labels with their network topology ("Topology-aware scheduling",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance-tasks-scheduling.html)
_TOPOLOGY_FAMILIES = ("p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6e-gb200", "trn1", "trn1n", "trn2", "trn2u")
NODES_PER_LAYER_3 = 2  # the sandbox's network: two instances under each bottom-layer network node


def topology_labels(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, str]:
    """``topology.k8s.aws/network-node-layer-1..3``: the network nodes above the instance, top first, as EC2's
    DescribeInstanceTopology reports them (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-topology.html)
    and HyperPod labels nodes with them (developer guide, "HyperPod cluster topology",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-topology.html). The sandbox's network:
    one top node per zone, one per instance group below it, and one per two instances of the group at the
    bottom (in launch order), so a group of four spans two bottom-layer blocks."""
    family = node.instance_type.removeprefix("ml.").rsplit(".", 1)[0]
    if family not in _TOPOLOGY_FAMILIES:
        return {}
    peers = sorted(
        (n for n in list(cluster.nodes.values()) if n.group == node.group),
        key=lambda n: (n.launch_time, n.instance_id),
    )
    index = next((i for i, n in enumerate(peers) if n.instance_id == node.instance_id), 0)

    def nn(*parts: str) -> str:
        return "nn-" + hashlib.sha256("/".join((cluster.cluster_name, *parts)).encode()).hexdigest()[:17]

    zone = node.placement["AvailabilityZone"]
    return {
        "topology.k8s.aws/network-node-layer-1": nn(zone),
        "topology.k8s.aws/network-node-layer-2": nn(zone, node.group),
        "topology.k8s.aws/network-node-layer-3": nn(zone, node.group, str(index // NODES_PER_LAYER_3)),
    }


def node_object(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, Any]:
    """The Kubernetes Node HyperPod registers for ``node``."""
    group = cluster.groups.get(node.group)
    health, deep, ready = _health(cluster, node)
    shape = shape_of(node.instance_type)
    name = NODE_PREFIX + node.instance_id
    labels = {
        "kubernetes.io/arch": shape.arch,
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": name,
        "node.kubernetes.io/instance-type": node.instance_type,
        "topology.kubernetes.io/region": cluster.region_name,
        "topology.kubernetes.io/zone": node.placement["AvailabilityZone"],
        "topology.k8s.aws/zone-id": node.placement["AvailabilityZoneId"],
        COMPUTE_TYPE_LABEL: "hyperpod",
        CLUSTER_NAME_LABEL: cluster.cluster_name,
        GROUP_LABEL: node.group,
        HEALTH_LABEL: health,
        **topology_labels(cluster, node),
    }
    if deep:
        labels[DEEP_HEALTH_LABEL] = deep
    kubernetes_config = (group.spec.get("KubernetesConfig") if group else None) or {}
    labels.update(kubernetes_config.get("Labels") or {})
    taints = [
        drop_empty({"key": t.get("Key"), "value": t.get("Value"), "effect": t.get("Effect")})
        for t in kubernetes_config.get("Taints") or []
    ]
    if health != "Schedulable":
        taints.append({"key": HEALTH_LABEL, "value": health, "effect": "NoSchedule"})
    since = node.started_wall.strftime("%Y-%m-%dT%H:%M:%SZ")
    # HyperPod's AMI runs the kubelet of the EKS cluster's Kubernetes minor version.
    kubelet = f"v{_eks_version(cluster) or '1.34'}.3-eks-473151a"
    ready_condition = {
        "type": "Ready",
        "status": "True" if ready else "Unknown",
        "reason": "KubeletReady" if ready else "NodeStatusUnknown",
        "message": "kubelet is posting ready status" if ready else "Kubelet stopped posting node status.",
        "lastHeartbeatTime": since,
        "lastTransitionTime": since,
    }
    spec: dict[str, Any] = {"providerID": f"aws:///{node.placement['AvailabilityZone']}/{node.instance_id}"}
    if taints:
        spec["taints"] = taints
    if health != "Schedulable":
        spec["unschedulable"] = True
    capacity, allocatable = shape.capacity(), shape.allocatable()
    mig.apply(node.instance_type, shape.gpus, labels, capacity, allocatable)
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": node.private_ip,
                # The sandbox's record of the node's network (not a Kubernetes annotation AWS sets): the
                # kubelet emulation pulls from the internet only when the subnet routes there.
                INTERNET_ANNOTATION: "true" if node.internet else "false",
            },
        },
        "spec": spec,
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": [ready_condition],
            "addresses": [
                {"type": "InternalIP", "address": node.private_ip},
                {"type": "InternalDNS", "address": node.dns_name},
                {"type": "Hostname", "address": node.dns_name},
            ],
            "nodeInfo": {
                "architecture": shape.arch,
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.7.20250609",
                "kernelVersion": "6.1.140-154.222.amzn2023.x86_64",
                "containerRuntimeVersion": "containerd://1.7.27",
                "kubeletVersion": kubelet,
                "kubeProxyVersion": kubelet,
                "machineID": node.instance_id.replace("i-", "ec2"),
                "systemUUID": node.instance_id.replace("i-", "ec2"),
                "bootID": hashlib.md5(f"{node.instance_id}{node.started}".encode()).hexdigest(),
            },
        },
    }
    health_agent.decorate(cluster, node, obj)  # the health agent's verdict on a fault it found
    return obj


def _eks_version(cluster: HyperPodCluster) -> str | None:
    arn = ((cluster.orchestrator or {}).get("Eks") or {}).get("ClusterArn")
    match = EKS_ARN.match(arn or "")
    if not match:
        return None
    try:
        from moto.eks.models import eks_backends

        found = eks_backends[match["account"]][match["region"]].clusters.get(match["name"])
    except Exception:  # the EKS emulation is unavailable
        return None
    return getattr(found, "version", None)


def desired_nodes(backend: SageMakerModelBackend, eks_cluster: str) -> list[dict[str, Any]]:
    """Node objects of every HyperPod cluster (of ``backend``) orchestrated by ``eks_cluster``."""
    hyperpod: list[HyperPodCluster] = []
    for cluster in backend.clusters.values():
        if isinstance(cluster, HyperPodCluster):
            hyperpod.append(cluster)
    return _nodes_of(hyperpod, eks_cluster)


def _nodes_of(clusters: Iterable[HyperPodCluster], eks_cluster: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for cluster in clusters:
        if cluster.eks_cluster_name != eks_cluster or cluster.deleting_since is not None or cluster.failed:
            continue
        out.extend(node_object(cluster, n) for n in cluster.nodes.values() if _visible(n))
    return sorted(out, key=lambda obj: obj["metadata"]["name"])


def pending_pushes(backend: SageMakerModelBackend, eks_clusters: Iterable[str]) -> list[tuple[Any, ...]]:
    """(key, EKS cluster, nodes) for the EKS clusters whose Node list changed (call under lock)."""
    if _state().node_sink is None:
        return []
    # The HyperPod clusters by the EKS cluster they run on, in one pass (not one pass over every cluster per EKS
    # cluster, which grew with the square of the clusters on every tick).
    by_eks: dict[str, list[HyperPodCluster]] = {}
    for cluster in backend.clusters.values():
        if isinstance(cluster, HyperPodCluster) and cluster.eks_cluster_name:
            by_eks.setdefault(cluster.eks_cluster_name, []).append(cluster)
    out = []
    for eks_cluster in sorted(set(eks_clusters)):
        nodes = _nodes_of(by_eks.get(eks_cluster, []), eks_cluster)
        key = (backend.account_id, backend.region_name, eks_cluster)
        if _state().pushed.get(key) != nodes:
            out.append((key, eks_cluster, nodes))
    return out


def push_nodes(pending: list[tuple[Any, ...]]) -> None:
    """Hand changed Node lists to the sink, outside the lock (the sink may block on another thread)."""
    sink = _state().node_sink
    if sink is None:
        return
    for key, eks_cluster, nodes in pending:
        try:
            sink(eks_cluster, nodes)
        except KeyError:  # the EKS cluster's API server is not running yet: retried on the next look
            log.debug("no Kubernetes API server for EKS cluster %s yet", eks_cluster)
            continue
        except Exception:
            log.warning("node sink failed for EKS cluster %s", eks_cluster, exc_info=True)
            continue
        with LOCK:
            _state().pushed[key] = nodes


async def _rebooted_event(emulator: Any, before: dict[str, Any] | None, node: dict[str, Any]) -> None:
    """kubelet's Warning event when a Node comes back with another boot id (pkg/kubelet/nodestatus, the
    NodeInfo setter: "Node %s has been rebooted, boot id: %s", reason Rebooted). A Node is not namespaced,
    so its events go to the default namespace."""
    old_boot = (((before or {}).get("status") or {}).get("nodeInfo") or {}).get("bootID")
    new_boot = node["status"]["nodeInfo"].get("bootID")
    if not old_boot or old_boot == new_boot:
        return
    name, now = node["metadata"]["name"], datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    await emulator.put_object(
        "v1/events",
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{name}.{uuid.uuid4().hex[:16]}", "namespace": "default"},
            "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": name, "uid": name},
            "reason": "Rebooted",
            "message": f"Node {name} has been rebooted, boot id: {new_boot}",
            "type": "Warning",
            "source": {"component": "kubelet", "host": name},
            "reportingComponent": "kubelet",
            "reportingInstance": name,
            "count": 1,
            "firstTimestamp": now,
            "lastTimestamp": now,
        },
    )


def kube_node_sink(fleet: Any) -> Callable[[str, list[dict[str, Any]]], None]:
    """A node sink for ``sandbox.kube.KubeFleet``: upsert the Nodes, delete stale ``hyperpod-*`` ones.

    Raises KeyError while the EKS cluster's API server is not running (the push is retried later).
    """

    def sink(eks_cluster: str, nodes: list[dict[str, Any]]) -> None:
        async def apply(emulator: Any) -> None:
            from kmock._internal import references

            wanted = {node["metadata"]["name"] for node in nodes}
            for node in nodes:
                before = emulator.get_object("v1/nodes", None, node["metadata"]["name"])
                await emulator.put_object("v1/nodes", node)
                await _rebooted_event(emulator, before, node)
            resource = references.resource("v1/nodes")
            for existing in emulator.list_objects("v1/nodes"):
                name = existing["metadata"]["name"]
                labels = existing["metadata"].get("labels") or {}
                if name in wanted or not name.startswith(NODE_PREFIX) or labels.get(COMPUTE_TYPE_LABEL) != "hyperpod":
                    continue
                # The emulator has no public delete helper; this mirrors its DELETE handler.
                key = (resource, None, name)
                async with emulator._lock:
                    if emulator._alive(key):
                        await emulator._remove(resource, key, False)

        fleet.call(eks_cluster, apply)

    return sink
