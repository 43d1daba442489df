"""Moving nodes between instance groups (MoveClusterNodes) as an operation: the refusals AWS documents,
checked before anything is drained; which nodes move; the plan; the pods a drain evicts; and where each
moving node stands.

AWS (API reference, MoveClusterNodes; developer guide, "Move nodes between instance groups and clusters",
https://docs.aws.amazon.com/sagemaker/latest/dg/smcluster-eks-move-nodes.html): both clusters InService,
orchestrated by EKS, with NodeProvisioningMode Continuous, in the same account and Region; one cluster's
groups must differ; 1..50 nodes; a node moves only when Running, in a subnet of the target group, of an
instance type the target group supports (NodeInstanceTypeMismatch), and when the source group stays at or
above its minimum instance count. The instance keeps its id, network interfaces and capacity (Flexible
Training Plan, managed reservation, On-Demand or Spot); its root and secondary EBS volumes are replaced.
While it moves it is DetachInProgress in the source, then AttachInProgress in the target.

AWS does not say what happens to the pods of a moving node, so Launchpod drains it first as ``kubectl
drain`` does: cordon, then evict (the Eviction API honours PodDisruptionBudgets) every pod but DaemonSet
and mirror pods (https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.nodes.hyperpod_node import HyperPodNode
from launchpod.domain.operations import WorkflowPlan, role_for
from launchpod.domain.plan import Step

KIND = MOVE = "move-nodes"
PHASES: tuple[tuple[str, str], ...] = (
    ("Drain", "Cordon the nodes and evict their pods"),
    ("Move", "Move the nodes: they leave the source group with their instances"),
    ("WaitMoved", "Follow every node until it runs in the target group"),
)
POLL_SECONDS = 30
# Simulated seconds before a drain or a move is given up: kubectl drain has no default timeout; a move
# reuses a running instance, "much less time" than a new one (about 20-30 minutes).
DRAIN_DEADLINE_SECONDS = 1800
MOVE_DEADLINE_SECONDS = 3600
DATA_LOSS = (
    "Moving a node replaces its root and secondary EBS volumes: whatever is stored on them is lost for good. "
    "Back up to S3 or FSx for Lustre first, then send acknowledgeDataLoss: true."
)
_MIRROR = "kubernetes.io/config.mirror"


def group_types(group: InstanceGroupState) -> list[str]:
    """The instance types a group runs: its InstanceType, or a flexible group's list."""
    if group.instance_type:
        return [group.instance_type]
    return list(group.current_instance_types or group.desired_instance_types)


def group_subnets(cluster: HyperPodCluster, group: InstanceGroupState) -> list[str]:
    """A group's subnets: its OverrideVpcConfig's, else the cluster's VpcConfig's."""
    return list(group.override_subnets or cluster.subnets)


def _region(cluster: HyperPodCluster) -> str:
    parts = cluster.arn.split(":")
    return parts[3] if len(parts) > 3 else ""


def _groups(cluster: HyperPodCluster) -> str:
    return ", ".join(sorted(g.name for g in cluster.instance_groups)) or "none"


def check_clusters(
    source_name: str,
    source: HyperPodCluster,
    target_name: str,
    target: HyperPodCluster,
    from_group: str,
    to_group: str,
) -> tuple[InstanceGroupState, InstanceGroupState]:
    """The source and target groups, once every rule AWS documents for the clusters holds (else why not)."""
    if source_name == target_name and from_group == to_group:
        raise InvalidInput(
            f"The nodes are already in {from_group}; name another instance group of {target_name} as targetGroup.",
            field="body.targetGroup",
            rule="other_group",
        )
    if _region(source) != _region(target):
        raise InvalidInput(
            f"{target_name} is in {_region(target)} and {source_name} in {_region(source)}; AWS moves nodes only "
            "between clusters of one Region.",
            field="body.targetCluster",
            rule="same_region",
        )
    found: list[InstanceGroupState] = []
    for name, cluster, group, field in (
        (source_name, source, from_group, "body.sourceGroup"),
        (target_name, target, to_group, "body.targetGroup"),
    ):
        described = cluster.group(group)
        if described is None:
            raise InvalidInput(
                f"{name} has no instance group {group}; it has {_groups(cluster)}.",
                field=field,
                rule="known_instance_group",
            )
        found.append(described)
    _check_cluster(source_name, source)
    if target_name != source_name:
        _check_cluster(target_name, target)
    return found[0], found[1]


def _check_cluster(name: str, cluster: HyperPodCluster) -> None:
    if not cluster.eks_arn:
        raise Conflict(f"{name} is not orchestrated by Amazon EKS; HyperPod moves nodes only between EKS clusters.")
    if not cluster.continuous:
        raise Conflict(
            f"{name} does not use continuous provisioning (NodeProvisioningMode Continuous), which AWS requires of "
            "both clusters to move nodes. Clusters get it at creation (hyperpod.nodeProvisioningMode: Continuous)."
        )
    status = cluster.status
    if status != "InService":
        raise Conflict(f"{name} is {status}; AWS moves nodes only while both clusters are InService. Wait, then retry.")


def refusal(node: HyperPodNode, zone: str | None, types: Sequence[str], zones: set[str]) -> str | None:
    """Why a node cannot move to a group running ``types`` in ``zones`` (None: it can), in AWS's terms."""
    node_id, status = node.node_id, node.status
    if status != "Running":
        return f"{node_id} is {status}; only Running nodes can move (InvalidNodeStatus)"
    if node.instance_type not in types:
        return (
            f"{node_id} is {node.instance_type}, which the target group does not run ({', '.join(types)};"
            " NodeInstanceTypeMismatch)"
        )
    if zones and zone and zone not in zones:
        return (
            f"{node_id} is in {zone}; the target group's subnets are in {', '.join(sorted(zones))} (InvalidNodeStatus)"
        )
    return None


@dataclass(frozen=True)
class Candidate:
    """A node of the source group: its summary, zone and the pods a drain would evict."""

    node: HyperPodNode
    zone: str | None
    pods: list[str]

    @property
    def node_id(self) -> str:
        return self.node.node_id


def choose(
    request: Mapping[str, Any],
    from_group: InstanceGroupState,
    candidates: Sequence[Candidate],
    types: Sequence[str],
    zones: set[str],
) -> list[Candidate]:
    """The nodes to move: those named (each must be in the source group and able to move), or ``count`` of
    the movable ones, the fewest pods first (the least work interrupted). Refused before anything drains."""
    group = from_group.name
    by_id = {c.node_id: c for c in candidates}
    if request.get("nodeIds"):
        unknown = [n for n in request["nodeIds"] if n not in by_id]
        if unknown:
            raise InvalidInput(
                f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not in instance group {group}.",
                field="body.nodeIds",
                rule="node_in_group",
            )
        chosen = [by_id[n] for n in request["nodeIds"]]
        reasons = [r for c in chosen if (r := refusal(c.node, c.zone, types, zones))]
        if reasons:
            raise Conflict("These nodes cannot move: " + "; ".join(reasons) + ".")
    else:
        movable = [c for c in candidates if refusal(c.node, c.zone, types, zones) is None]
        count = int(request["count"])
        if len(movable) < count:
            reasons = [r for c in candidates if (r := refusal(c.node, c.zone, types, zones))]
            why = f": {'; '.join(reasons)}" if reasons else ""
            raise Conflict(f"{group} has {len(movable)} node(s) that can move, {count} asked{why}.")
        chosen = sorted(movable, key=lambda c: (len(c.pods), c.node_id))[:count]
    minimum = from_group.min_count or 0
    left = (from_group.target_count or len(candidates)) - len(chosen)
    if left < minimum:
        raise Conflict(
            f"Moving {len(chosen)} node(s) would leave {group} with {left}, below its minimum instance count of "
            f"{minimum}; move at most {max(0, len(chosen) + left - minimum)}."
        )
    return chosen


def _capacity(from_group: InstanceGroupState) -> str:
    if from_group.training_plan_arn:
        return f"training plan {from_group.training_plan_arn.rsplit('/', 1)[-1]}"
    return "its reservation, On-Demand or Spot capacity"


def plan(
    cluster: str,
    request: dict[str, Any],
    chosen: Sequence[Candidate],
    from_group: InstanceGroupState,
    destination: str,
) -> WorkflowPlan:
    """The move with its steps: each node drained, moved, then followed; the request as the workflow reads it
    (the nodes chosen, the target cluster named). ``destination`` says where in words ("group infer", or
    "group infer of cluster c2"), short names apart, so that a line never breaks inside one."""
    steps: list[Step] = []
    for c in chosen:
        pods = f"evict {len(c.pods)} pod(s): {', '.join(c.pods)}" if c.pods else "no pods to evict"
        steps.append(Step("drain", f"node {c.node_id}", f"cordon, then {pods}", "Drain"))
    for c in chosen:
        steps.append(
            Step(
                "move",
                f"node {c.node_id}",
                f"into {destination}, keeping the same instance and {_capacity(from_group)};"
                " its root and secondary EBS volumes are replaced",
                "Move",
            )
        )
    why = f"followed until Running in {destination}; a node AWS refuses is reported with AWS's reason"
    steps.append(Step("wait", "for each node above", why, "WaitMoved"))
    return WorkflowPlan(
        kind=MOVE,
        target=cluster,
        request={**request, "nodeIds": [c.node_id for c in chosen], "count": None},
        phases=PHASES,
        role=role_for(MOVE),
        steps=[s.view() for s in steps],
    )


def _evicted(pod: Mapping[str, Any]) -> bool:
    """Whether a drain evicts ``pod``: not a DaemonSet pod (their controller ignores unschedulable), not a
    mirror pod (the kubelet's own), not finished, not already being deleted, as ``kubectl drain`` skips them."""
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    if meta.get("deletionTimestamp") or _MIRROR in (meta.get("annotations") or {}):
        return False
    if status.get("phase") in ("Succeeded", "Failed"):
        return False
    return not any(ref.get("kind") == "DaemonSet" for ref in meta.get("ownerReferences") or [])


def evictable(pods: Sequence[Mapping[str, Any]], node_names: set[str]) -> list[tuple[str, str]]:
    """(namespace, name) of the pods a drain evicts from ``node_names``."""
    return sorted(
        (str(p["metadata"].get("namespace")), str(p["metadata"].get("name")))
        for p in pods
        if (p.get("spec") or {}).get("nodeName") in node_names and _evicted(p)
    )


def pods_by_node(pods: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Node name -> "namespace/name" of the pods a drain would evict there."""
    out: dict[str, list[str]] = {}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node and _evicted(pod):
            meta = pod["metadata"]
            out.setdefault(str(node), []).append(f"{meta.get('namespace')}/{meta.get('name')}")
    return {node: sorted(names) for node, names in out.items()}


@dataclass(frozen=True)
class Where:
    """Where one moving node stands: done (Running in the target group), failed (with why), or on its way."""

    node_id: str
    done: bool
    ok: bool
    message: str


def follow(
    node_ids: Sequence[str], source: Sequence[HyperPodNode], target: Sequence[HyperPodNode], to_group: str
) -> list[Where]:
    """Each node from ListClusterNodes of the source and target clusters: DetachInProgress in the source,
    AttachInProgress then Running in the target group (API reference, MoveClusterNodes)."""
    there = {n.node_id: n for n in target if n.group == to_group}
    here = {n.node_id: n for n in source}
    out = []
    for node_id in node_ids:
        node = there.get(node_id)
        listed = node or here.get(node_id)
        status, message = (listed.status, listed.message) if listed else (None, "")
        if node is not None and status == "Running":
            out.append(Where(node_id, True, True, f"Running in {to_group}"))
        elif status == "Failure":
            out.append(Where(node_id, True, False, f"failed: {message or 'no reason given'}"))
        elif status is None:
            out.append(Where(node_id, False, True, "not listed yet (handed over between the clusters)"))
        else:
            out.append(Where(node_id, False, True, f"{status}{f': {message}' if message else ''}"))
    return out


@dataclass(frozen=True)
class NodeMove:
    """One MoveClusterNodes request: nodes by instance id, from a group of one cluster to a group of the same
    or another cluster of the Region; a retried call with the same token answers what the first did."""

    source_cluster_arn: str
    source_group: str
    target_cluster_arn: str
    target_group: str
    node_ids: tuple[str, ...]
    client_token: str


@dataclass(frozen=True)
class MoveRefusal:
    """A node AWS would not move (MoveClusterNodesError): its code (NodeIdNotFound, InvalidNodeStatus,
    NodeIdInUse, NodeInstanceTypeMismatch) and why."""

    node_id: str
    code: str
    message: str = ""

    def recorded(self) -> dict[str, str]:
        """As Move records it for WaitMoved (MoveOutput.refused): MoveClusterNodesError's own keys."""
        return {"NodeId": self.node_id, "Code": self.code, "Message": self.message}


@dataclass(frozen=True)
class MovedNodes:
    """MoveClusterNodes' answer for nodes named by id: those it started moving and those it refused."""

    accepted: tuple[str, ...]
    refused: tuple[MoveRefusal, ...] = ()


def refused_line(failed: Sequence[Mapping[str, Any]]) -> str:
    """AWS's per-node refusals (MoveClusterNodesError, as MoveRefusal.recorded keeps them) in one line."""
    return "; ".join(f"{f.get('NodeId')}: {f.get('Code')} {f.get('Message') or ''}".strip() for f in failed)
