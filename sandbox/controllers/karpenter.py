"""HyperPod-managed Karpenter, the Kubernetes side: what the Karpenter HyperPod runs for a cluster whose
AutoScaling is InService does with pending Pods and idle nodes.

* When AutoScaling is InService, HyperPod has installed Karpenter: the ``NodePool`` (karpenter.sh/v1) and
  ``HyperpodNodeClass`` (karpenter.sagemaker.amazonaws.com/v1) kinds exist in the cluster's API server.
* A Pod the scheduler left Pending (``PodScheduled=False``, ``Unschedulable``) for Karpenter's batch
  window (1 simulated second, its ``batchIdleDuration`` default) that a node of a managed group would
  admit (resources, node selector and affinity, taints: ``sandbox.controllers.scheduling``) makes Karpenter call
  ``BatchAddClusterNodes`` on that group, one node per such Pod beyond the nodes already launching.
  Managed groups are the ``spec.instanceGroups`` of a HyperpodNodeClass a NodePool's ``nodeClassRef``
  names; nothing else (plain EC2 or EKS node groups) is ever scaled.
* A Ready node of a managed group that runs no Pod but DaemonSet Pods for the NodePool's
  ``spec.disruption.consolidateAfter`` is removed with ``BatchDeleteClusterNodes``, back to zero
  (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-nodepool.html).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from sandbox.controllers import scheduling
from sandbox.controllers.common import crd, install_crd
from sandbox.controllers.periodic import Periodic
from sandbox.state import STATE

log = logging.getLogger("sandbox.controllers.karpenter")

NODE_CLASSES = "karpenter.sagemaker.amazonaws.com/v1/hyperpodnodeclasses"
NODE_POOLS = "karpenter.sh/v1/nodepools"
BATCH_SECONDS = 1.0
CRDS = (
    ("karpenter.sh", "NodePool", "nodepools", "v1"),
    ("karpenter.sagemaker.amazonaws.com", "HyperpodNodeClass", "hyperpodnodeclasses", "v1"),
)


def duration_seconds(text: Any, default: float) -> float:
    """Karpenter's durations ("30s", "5m", "1h30m"); "Never" is infinite."""
    if text is None:
        return default
    if str(text) == "Never":
        return float("inf")
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|m|s)", str(text))
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts) if parts else default


@dataclass
class _Seen:
    pending_since: dict[str, float] = field(default_factory=dict)  # pod uid -> sim time first seen pending
    idle_since: dict[str, float] = field(default_factory=dict)  # node name -> sim time first seen idle


@dataclass
class KarpenterState:
    """What Karpenter has seen of each cluster (by HyperPod cluster ARN)."""

    seen: dict[str, _Seen] = field(default_factory=dict)


async def _read(emulator: Any) -> dict[str, Any]:
    """Install Karpenter's kinds (once) and read what Karpenter watches."""
    for group, kind, plural, version in CRDS:
        await install_crd(emulator, crd(group, kind, plural, (version,), scope="Cluster"))
    return {
        "classes": emulator.list_objects(NODE_CLASSES),
        "pools": emulator.list_objects(NODE_POOLS),
        "pods": emulator.list_objects("v1/pods"),
        "nodes": emulator.list_objects("v1/nodes"),
    }


def _managed(state: dict[str, Any]) -> tuple[list[str], float]:
    """Managed groups (in NodeClass order) and the shortest consolidateAfter of the NodePools using them."""
    classes = {c["metadata"]["name"]: c for c in state["classes"]}
    groups: list[str] = []
    consolidate = float("inf")
    for pool in state["pools"]:
        spec = pool.get("spec") or {}
        ref = ((spec.get("template") or {}).get("spec") or {}).get("nodeClassRef") or {}
        node_class = classes.get(ref.get("name", "")) if ref.get("kind") == "HyperpodNodeClass" else None
        if node_class is None:
            continue
        for group in (node_class.get("spec") or {}).get("instanceGroups") or []:
            if group not in groups:
                groups.append(group)
        consolidate = min(consolidate, duration_seconds((spec.get("disruption") or {}).get("consolidateAfter"), 0.0))
    return groups, consolidate


def _unschedulable(pod: dict[str, Any]) -> bool:
    if (pod.get("spec") or {}).get("nodeName") or (pod.get("status") or {}).get("phase") != "Pending":
        return False
    return any(
        c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _ready(node: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (node.get("status") or {}).get("conditions") or []
    )


def _daemon(pod: dict[str, Any]) -> bool:
    return any(o.get("kind") == "DaemonSet" for o in (pod.get("metadata") or {}).get("ownerReferences") or [])


def reconcile(fleet: Any) -> None:
    """One pass over every HyperPod cluster whose AutoScaling is InService."""
    from moto.sagemaker.models import sagemaker_backends

    from sandbox.aws import sagemaker as hp
    from sandbox.aws.sagemaker import autoscaling

    running = set(fleet.names())
    for account, regions in list(sagemaker_backends.items()):
        for region, backend in list(regions.items()):
            with hp.LOCK:
                clusters = [
                    c
                    for c in list(backend.clusters.values())
                    if isinstance(c, hp.HyperPodCluster)
                    and c.eks_cluster_name in running
                    and autoscaling.enabled(c, hp.sim_now())
                ]
            for cluster in clusters:
                assert isinstance(cluster, hp.HyperPodCluster)  # as filtered above
                try:
                    state = fleet.call(cluster.eks_cluster_name, _read)
                    _act(backend, cluster, state)
                except Exception:  # a cluster being deleted, a loop shutting down: next tick
                    log.debug(
                        "karpenter reconcile failed for %s/%s/%s", account, region, cluster.cluster_name, exc_info=True
                    )


def _act(backend: Any, cluster: Any, state: dict[str, Any]) -> None:
    from sandbox.aws import sagemaker as hp

    groups, consolidate = _managed(state)
    seen = STATE.part(KarpenterState).seen.setdefault(cluster.arn, _Seen())
    now = hp.sim_now()
    if not groups:
        return
    pending = [p for p in state["pods"] if _unschedulable(p)]
    alive = {p["metadata"].get("uid", p["metadata"]["name"]) for p in pending}
    seen.pending_since = {uid: t for uid, t in seen.pending_since.items() if uid in alive}
    demand: dict[str, int] = {}
    with hp.LOCK:
        for pod in pending:
            uid = pod["metadata"].get("uid", pod["metadata"]["name"])
            first = seen.pending_since.setdefault(uid, now)
            if now - first < BATCH_SECONDS:
                continue
            for name in groups:
                group = cluster.groups.get(name)
                if group is None or group.deleting_since is not None or group.failure:
                    continue
                if _fits(cluster, group, pod):
                    demand[name] = demand.get(name, 0) + 1
                    break
        busy = _busy_nodes(state)
        adds = []
        for name, wanted in demand.items():
            # Nodes still launching, and Ready ones the scheduler has not used yet, take pending pods first
            # (Karpenter's scheduling simulation counts in-flight and existing capacity before adding).
            free = sum(
                1
                for n in hp.group_nodes(cluster, name)
                if hp.NODE_PREFIX + n.instance_id not in busy and n.state()[0] not in ("Failure", "ShuttingDown")
            )
            if wanted > free:
                adds.append({"InstanceGroupName": name, "IncrementTargetCountBy": min(50, wanted - free)})
        # No consolidation while pods wait: an idle node may be about to take one.
        deletes = [] if pending else _idle_nodes(cluster, state, groups, consolidate, seen, now)
        if adds:
            hp.batch_add_nodes(backend, {"ClusterName": cluster.cluster_name, "NodesToAdd": adds})
            cluster.event(
                "Cluster",
                "Karpenter: " + ", ".join(f"+{a['IncrementTargetCountBy']} {a['InstanceGroupName']}" for a in adds),
            )
        if deletes:
            hp.batch_node_operation(backend, cluster.cluster_name, deletes, "delete")
            cluster.event("Cluster", f"Karpenter consolidated {len(deletes)} idle node(s): {', '.join(deletes)}")
        pushes = hp.pending_pushes(backend, [cluster.eks_cluster_name]) if (adds or deletes) else []
    if pushes:
        hp.push_nodes(pushes)


def _fits(cluster: Any, group: Any, pod: dict[str, Any]) -> bool:
    """Whether a new node of ``group`` would take ``pod`` (the scheduler's filters on a node as HyperPod makes it)."""
    from sandbox.aws import sagemaker as hp

    subnets = ((group.spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    placement = hp.subnet_placements(cluster.account_id, cluster.region_name, subnets)[0]
    probe = hp.HyperPodNode(group.name, group.instance_type, placement, [hp.Phase("Running", float("inf"), "")])
    probe.joined = True
    node = hp.node_object(cluster, probe)
    chosen, _ = scheduling.schedule(pod.get("spec") or {}, [node], [], None)
    return chosen is not None


def _busy_nodes(state: dict[str, Any]) -> set[str | None]:
    """Nodes running a Pod that is not a DaemonSet's."""
    return {
        (p.get("spec") or {}).get("nodeName")
        for p in state["pods"]
        if not _daemon(p) and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    }


def _idle_nodes(
    cluster: Any, state: dict[str, Any], groups: list[str], consolidate: float, seen: _Seen, now: float
) -> list[str]:
    from sandbox.aws import sagemaker as hp

    busy = _busy_nodes(state)
    ids = []
    live = set()
    for node in state["nodes"]:
        labels = (node.get("metadata") or {}).get("labels") or {}
        name = node["metadata"]["name"]
        if labels.get(hp.GROUP_LABEL) not in groups or labels.get(hp.CLUSTER_NAME_LABEL) != cluster.cluster_name:
            continue
        if not _ready(node) or name in busy:
            seen.idle_since.pop(name, None)
            continue
        live.add(name)
        first = seen.idle_since.setdefault(name, now)
        if now - first >= consolidate:
            ids.append(name.removeprefix(hp.NODE_PREFIX))
    seen.idle_since = {n: t for n, t in seen.idle_since.items() if n in live}
    return [i for i in ids if i in cluster.nodes]


def karpenter_controller(fleet: Any, interval: float = 0.05) -> Periodic:
    return Periodic("sandbox-karpenter", interval, lambda: reconcile(fleet))
