"""What happens to one instance: the phases a launch goes through, launching a group's instances, replacing
and rebooting one, and the per-node part of BatchReboot/Replace/DeleteClusterNodes (``operate_nodes``) with
the per-node failures botocore's error-code enums name. HyperPod's own repairs (automatic node recovery,
the health-monitoring agent's) use the same actions as the API."""

from __future__ import annotations

import math
from typing import Any

from sandbox.aws.sagemaker.common import invalid, subnet_placements
from sandbox.aws.sagemaker.durations import durations
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, InstanceGroup, Phase, group_nodes


def launch_phases(
    pending: float, deep_checks: list[str], failure: str | None = None, pending_message: str = ""
) -> list[Phase]:
    phases = [Phase("Pending", pending, pending_message)]
    if deep_checks:
        phases.append(
            Phase(
                "DeepHealthCheckInProgress",
                pending + durations()["deep_health_check"],
                "Deep health checks in progress: " + ", ".join(deep_checks),
            )
        )
    phases.append(Phase("Failure" if failure else "Running", math.inf, failure or ""))
    return phases


def deep_health_failure(node_id: str, checks: list[str], recovery: str) -> str:
    check = checks[0] if checks else "InstanceStress"
    then = (
        "HyperPod will replace the instance (NodeRecovery is Automatic)."
        if recovery == "Automatic"
        else "Replace it with BatchReplaceClusterNodes (NodeRecovery is None)."
    )
    return (
        f"Deep health check {check} failed on instance {node_id}: GPU 3 failed the DCGM level 4 diagnostic "
        f"(memory test, double-bit ECC errors). The node is marked UnschedulablePendingReplacement. {then}"
    )


def add_nodes(
    cluster: HyperPodCluster,
    group: InstanceGroup,
    count: int,
    pending: float,
    kind: str,
    *,
    instance_type: str | None = None,
) -> list[HyperPodNode]:
    subnets = ((group.spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    placements = subnet_placements(cluster.account_id, cluster.region_name, subnets)
    existing = len(group_nodes(cluster, group.name))
    added = []
    for i in range(count):
        node = HyperPodNode(
            group.name,
            instance_type or group.instance_type,
            placements[(existing + i) % len(placements)],
            launch_phases(pending, group.deep_health_checks),
            deep_health_checks=group.deep_health_checks,
            kind=kind,
        )
        cluster.nodes[node.instance_id] = node
        added.append(node)
    return added


def replace_node(cluster: HyperPodCluster, node: HyperPodNode, reason: str) -> HyperPodNode:
    """Terminate ``node`` and start a fresh instance in its group and zone."""
    del cluster.nodes[node.instance_id]
    group = cluster.groups.get(node.group)
    checks = group.deep_health_checks if group else node.deep_health_checks
    fresh = HyperPodNode(
        node.group,
        node.instance_type,
        node.placement,
        launch_phases(durations()["replace"], checks, pending_message=f"Replacing instance {node.instance_id}"),
        deep_health_checks=checks,
        kind="replace",
    )
    fresh.plan_arn = node.plan_arn  # a moved instance's replacement runs on the capacity it came with
    cluster.nodes[fresh.instance_id] = fresh
    cluster.event(
        "Instance",
        f"Instance {node.instance_id} is being replaced by {fresh.instance_id}: {reason}",
        group=node.group,
        instance_id=fresh.instance_id,
    )
    return fresh


def reboot_node(cluster: HyperPodCluster, node: HyperPodNode) -> None:
    """Restart ``node`` on the same instance."""
    node._restart([Phase("Pending", durations()["reboot"], "Rebooting instance"), Phase("Running", math.inf)], "reboot")
    node.failed_at = None
    cluster.event(
        "Instance", f"Instance {node.instance_id} is rebooting.", group=node.group, instance_id=node.instance_id
    )


def _node_of(cluster: HyperPodCluster, node_id: str) -> HyperPodNode | None:
    return cluster.nodes.get(node_id)


def operate_nodes(
    cluster: HyperPodCluster, node_ids: list[str], operation: str
) -> tuple[list[str], list[dict[str, str]]]:
    """Reboot, replace or delete instances of ``cluster``; returns (successful ids, failures)."""
    limit = 99 if operation == "delete" else 25
    if len(node_ids) > limit:
        raise invalid(
            f"1 validation error detected: Value at 'nodeIds' failed to satisfy constraint: "
            f"Member must have length less than or equal to {limit}"
        )
    if operation == "replace" and not cluster.patched_for_replace:
        # AWS: "If you want to invoke this API on an existing cluster, you'll first need to patch the cluster
        # by running the UpdateClusterSoftware API" (API reference, BatchReplaceClusterNodes); the wording
        # of the refusal is ours.
        raise invalid(
            f"Cluster {cluster.cluster_name} runs platform software that predates BatchReplaceClusterNodes; "
            "patch it with UpdateClusterSoftware before replacing nodes."
        )
    code_field = "Code" if operation == "delete" else "ErrorCode"
    not_found = "NodeIdNotFound" if operation == "delete" else "InstanceIdNotFound"
    bad_status = "InvalidNodeStatus" if operation == "delete" else "InvalidInstanceStatus"
    ok: list[str] = []
    failed: list[dict[str, str]] = []
    for node_id in node_ids:
        node = _node_of(cluster, node_id)
        if node is None:
            failed.append(
                {
                    "NodeId": node_id,
                    code_field: not_found,
                    "Message": f"Node {node_id} not found in cluster {cluster.cluster_name}.",
                }
            )
            continue
        status, _ = node.state()
        allowed = {"Running", "Failure"} | (
            {"Pending", "DeepHealthCheckInProgress"} if operation == "delete" else set()
        )
        if status not in allowed or cluster.deleting_since is not None:
            failed.append(
                {
                    "NodeId": node_id,
                    code_field: bad_status,
                    "Message": f"Node {node_id} is in {status} status; "
                    f"only Running or Failure nodes can be {operation}ed.",
                }
            )
            continue
        if operation == "reboot":
            reboot_node(cluster, node)
        elif operation == "replace":
            replace_node(cluster, node, "BatchReplaceClusterNodes")
        else:
            del cluster.nodes[node_id]
            group = cluster.groups.get(node.group)
            if group is not None:
                group.spec["InstanceCount"] = max(group.target - 1, 0)
            cluster.event("Instance", f"Instance {node_id} was deleted.", group=node.group, instance_id=node_id)
        ok.append(node_id)
    return ok, failed


def hand_off(clusters: dict[str, Any], cluster: HyperPodCluster) -> None:
    """MoveClusterNodes' hand-off (``moves``): nodes of ``cluster`` whose detach is over join their target
    group, in the target cluster (of ``clusters``, moto's table) when it is another."""
    for node in list(cluster.nodes.values()):
        destination = node.move_to
        if destination is None or node.elapsed() < node.phases[0].until:
            continue
        node.move_to = None
        target = clusters.get(destination[0])
        if not isinstance(target, HyperPodCluster):  # the target is gone: the instance has nowhere to go
            continue
        if target is not cluster:
            del cluster.nodes[node.instance_id]
            target.nodes[node.instance_id] = node
        node.group = destination[1]
        group = target.groups.get(node.group)
        node.deep_health_checks = group.deep_health_checks if group else []
        target.event(
            "Instance",
            f"Instance {node.instance_id} joined instance group {node.group}.",
            group=node.group,
            instance_id=node.instance_id,
        )
