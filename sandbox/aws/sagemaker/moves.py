"""MoveClusterNodes: running nodes moved from one instance group to another, in one cluster or between two
clusters of the account and Region, without releasing their instances.

From the API reference (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_MoveClusterNodes.html)
and the developer guide's "Move nodes between instance groups and clusters" (smcluster-eks-move-nodes):

* Both clusters must be InService, orchestrated by EKS and use NodeProvisioningMode Continuous; both ARNs in
  the Region that serves the call (a cross-Region move is rejected); one cluster: the groups must differ.
* Exactly one of InstanceCount (1..50, HyperPod picks; fewer eligible nodes fail the whole request),
  NodeIds or NodeLogicalIds (1..50, each evaluated: ``Failed`` with NodeIdNotFound, InvalidNodeStatus,
  NodeIdInUse, NodeInstanceTypeMismatch). The request fails when none can move, or when moving the eligible
  ones would take the source group below its minimum instance count.
* ClientToken: the same token with the same parameters within 8 hours answers the first response and moves
  nothing again; with other parameters the request fails.
* Asynchronous: a node is ``DetachInProgress`` in the source, then ``AttachInProgress`` in the target, then
  Running there with the target's configuration. It keeps its instance id and capacity, including the
  training plan it ran on (the plan's usage does not change); its EBS volumes are replaced.

The error codes' triggers, AWS's wording of whole-request failures and the transition times
(``move_detach``, ``move_attach``) are the sandbox's: AWS documents neither.
"""

from __future__ import annotations

import json
import math
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker.clusters import _zones_of, find_cluster
from sandbox.aws.sagemaker.common import CLUSTER_ARN, invalid
from sandbox.aws.sagemaker.durations import durations, sim_now
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, InstanceGroup, Phase, cluster_status

_TOKEN_SECONDS = 8 * 3600  # "within 8 hours" (API reference, ClientToken)
_MOVING = ("DetachInProgress", "AttachInProgress")


def _region_of(arn: str) -> str:
    return arn.split(":")[3] if arn.count(":") >= 5 else ""


def _cluster(backend: SageMakerModelBackend, arn: str, field: str) -> HyperPodCluster:
    if not CLUSTER_ARN.match(arn or ""):
        raise invalid(f"Value '{arn}' at '{field}' failed to satisfy constraint: Member must be a cluster ARN.")
    if _region_of(arn) != backend.region_name:
        raise invalid(
            f"{field} {arn} is in {_region_of(arn)}; MoveClusterNodes moves nodes only between clusters in the "
            f"Region that serves the call ({backend.region_name})."
        )
    return find_cluster(backend, arn)


def _group(cluster: HyperPodCluster, name: str) -> InstanceGroup:
    group = cluster.groups.get(name)
    if group is None or group.deleting_since is not None:
        raise invalid(f"Instance group {name} does not exist in cluster {cluster.cluster_name}.")
    return group


def _check_cluster(cluster: HyperPodCluster) -> None:
    if not (cluster.orchestrator or {}).get("Eks"):
        raise invalid(f"Cluster {cluster.cluster_name} is not orchestrated by Amazon EKS; nodes cannot be moved.")
    if cluster.settings.get("NodeProvisioningMode") != "Continuous":
        raise invalid(
            f"Cluster {cluster.cluster_name} does not use NodeProvisioningMode Continuous; MoveClusterNodes "
            "requires continuous provisioning on both clusters."
        )
    status = cluster_status(cluster)
    if status != "InService":
        raise invalid(f"Cluster {cluster.cluster_name} is {status}; both clusters must be InService to move nodes.")


def _types_of(group: InstanceGroup) -> list[str]:
    if group.spec.get("InstanceType"):
        return [str(group.spec["InstanceType"])]
    return list((group.spec.get("InstanceRequirements") or {}).get("InstanceTypes") or [])


def _refusal(
    node: HyperPodNode | None, node_id: str, source: InstanceGroup, target: tuple[HyperPodCluster, InstanceGroup]
) -> tuple[str, str] | None:
    """(code, message) when ``node`` cannot move, as MoveClusterNodesError's codes describe them."""
    cluster, group = target
    if node is None or node.group != source.name:
        return "NodeIdNotFound", f"Node {node_id} does not exist in instance group {source.name}."
    status, _ = node.state()
    if node.kind == "move" and status in _MOVING:
        return "NodeIdInUse", f"Node {node_id} is already being moved ({status})."
    if status != "Running":
        return "InvalidNodeStatus", f"Node {node_id} is {status}; only Running nodes can be moved."
    zone = node.placement["AvailabilityZone"]
    if zone not in _zones_of(cluster, group.spec):
        return (
            "InvalidNodeStatus",
            f"Node {node_id} is in {zone}, which has no subnet of instance group {group.name}.",
        )
    if node.instance_type not in _types_of(group):
        return (
            "NodeInstanceTypeMismatch",
            f"Instance group {group.name} does not support the node's instance type {node.instance_type}.",
        )
    return None


def _start_move(node: HyperPodNode, source: HyperPodCluster, target: HyperPodCluster, group: InstanceGroup) -> None:
    """Detach in the source, hand off to ``group`` (``hand_off``), attach, then Running there."""
    if node.plan_arn is None:  # the capacity it came with stays with the instance
        node.plan_arn = (
            (source.groups[node.group].spec.get("TrainingPlanArn") or "") if node.group in source.groups else ""
        )
    detach, attach = durations()["move_detach"], durations()["move_attach"]
    node._restart(
        [
            Phase("DetachInProgress", detach, f"Moving to {target.cluster_name}/{group.name}"),
            Phase("AttachInProgress", detach + attach, f"Joining instance group {group.name}"),
            Phase("Running", math.inf),
        ],
        "move",
    )
    node.move_to = (target.cluster_name, group.name)
    source.event(
        "Instance",
        f"Instance {node.instance_id} is moving to instance group {group.name} of cluster {target.cluster_name}.",
        group=node.group,
        instance_id=node.instance_id,
    )


def _params_key(params: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in sorted(params.items()) if k != "ClientToken"}, sort_keys=True, default=str)


def move_nodes(backend: SageMakerModelBackend, params: dict[str, Any]) -> tuple[list[HyperPodCluster], dict[str, Any]]:
    """MoveClusterNodes; returns (the clusters touched, the response)."""
    token = params.get("ClientToken")
    replies: dict[str, Any] = backend.__dict__.setdefault("_move_tokens", {})
    if token and token in replies:
        key, at, first, touched = replies[token]
        if sim_now() - at < _TOKEN_SECONDS:
            if key != _params_key(params):
                raise invalid(f"Client token {token} was already used with different parameters.")
            return touched, first
    chosen = [k for k in ("InstanceCount", "NodeIds", "NodeLogicalIds") if params.get(k)]
    if len(chosen) != 1:
        raise invalid("Specify exactly one of NodeIds, NodeLogicalIds, or InstanceCount.")
    source = _cluster(backend, params["SourceClusterArn"], "SourceClusterArn")
    target = _cluster(backend, params["TargetClusterArn"], "TargetClusterArn")
    from_group = _group(source, params["SourceInstanceGroupName"])
    to_group = _group(target, params["TargetInstanceGroupName"])
    if source is target and from_group is to_group:
        raise invalid("The target instance group must differ from the source instance group in the same cluster.")
    for cluster in {id(c): c for c in (source, target)}.values():
        _check_cluster(cluster)
    ids: list[str]
    if chosen[0] == "InstanceCount":
        count = int(params["InstanceCount"])
        eligible = [
            n.instance_id
            for n in sorted(source.nodes.values(), key=lambda n: n.launch_time, reverse=True)
            if _refusal(n, n.instance_id, from_group, (target, to_group)) is None
        ]
        if len(eligible) < count:
            raise invalid(
                f"Instance group {from_group.name} has {len(eligible)} node(s) eligible to move; {count} asked."
            )
        ids = eligible[:count]
    elif chosen[0] == "NodeLogicalIds":  # the sandbox does not track logical ids: none is found
        raise invalid(f"None of the nodes can be moved: no node of {from_group.name} has those NodeLogicalIds.")
    else:
        ids = list(params["NodeIds"])
    failed: list[dict[str, str]] = []
    movable: list[HyperPodNode] = []
    for node_id in ids:
        node = source.nodes.get(node_id)
        refused = _refusal(node, node_id, from_group, (target, to_group))
        if refused or node is None:
            code, message = refused or ("NodeIdNotFound", node_id)
            failed.append({"NodeId": node_id, "Code": code, "Message": message})
        else:
            movable.append(node)
    if not movable:
        raise invalid("None of the nodes can be moved: " + "; ".join(f["Message"] for f in failed))
    minimum = int(from_group.spec.get("MinInstanceCount") or 0)
    if from_group.target - len(movable) < minimum:
        raise invalid(
            f"Moving {len(movable)} node(s) would take instance group {from_group.name} below its minimum instance "
            f"count of {minimum}."
        )
    from_group.spec["InstanceCount"] = from_group.target - len(movable)
    to_group.spec["InstanceCount"] = to_group.target + len(movable)
    for node in movable:
        _start_move(node, source, target, to_group)
    answer: dict[str, Any] = {"Successful": [n.instance_id for n in movable]}
    if failed:
        answer["Failed"] = failed
    touched = list({id(c): c for c in (source, target)}.values())
    if token:
        replies[token] = (_params_key(params), sim_now(), answer, touched)
    return touched, answer
