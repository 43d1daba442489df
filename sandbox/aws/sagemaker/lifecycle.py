"""Node lifecycle: launching instances, replacing them, announcing their phase changes as cluster events,
health-based automatic recovery, and ``settle_cluster``, which applies every transition that is due (deletions,
rolled-back creations, software updates, joining the EKS cluster) whenever a cluster is looked at."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.hyperpod_network import internet_egress, join_blocker
from sandbox.aws.sagemaker.common import EKS_ARN, subnet_placements, utcnow
from sandbox.aws.sagemaker.durations import DURATIONS, sim_now
from sandbox.aws.sagemaker.models import (
    ClusterEvent,
    HyperPodCluster,
    HyperPodNode,
    InstanceGroup,
    Phase,
    group_nodes,
    group_status,
    software_active,
)

#: ``fn(backend, cluster)`` hooks run on every settle (kept by modules such as ``sandbox.aws.node_faults``).
SETTLE_HOOKS: list[Callable[[Any, Any], None]] = []


def launch_phases(
    pending: float, deep_checks: list[str], failure: str | None = None, pending_message: str = ""
) -> list[Phase]:
    phases = [Phase("Pending", pending, pending_message)]
    if deep_checks:
        phases.append(
            Phase(
                "DeepHealthCheckInProgress",
                pending + DURATIONS["deep_health_check"],
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
    cluster: HyperPodCluster, group: InstanceGroup, count: int, pending: float, kind: str
) -> list[HyperPodNode]:
    subnets = ((group.spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    placements = subnet_placements(cluster.account_id, cluster.region_name, subnets)
    existing = len(group_nodes(cluster, group.name))
    added = []
    for i in range(count):
        node = HyperPodNode(
            group.name,
            group.instance_type,
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
        launch_phases(DURATIONS["replace"], checks, pending_message=f"Replacing instance {node.instance_id}"),
        deep_health_checks=checks,
        kind="replace",
    )
    cluster.nodes[fresh.instance_id] = fresh
    cluster.event(
        "Instance",
        f"Instance {node.instance_id} is being replaced by {fresh.instance_id}: {reason}",
        group=node.group,
        instance_id=fresh.instance_id,
    )
    return fresh


_PHASE_EVENTS = {
    "DeepHealthCheckInProgress": ("Info", "Deep health checks started on instance {id}: {checks}."),
    "Running": ("Info", "Instance {id} is running."),
    "Failure": ("Error", "Instance {id} failed: {message}"),
}


def _announce(cluster: HyperPodCluster, node: HyperPodNode) -> None:
    """Record events for the phase boundaries ``node`` has passed since the last look."""
    if node.join_blocker and not node.joined and node.state()[1] == node.join_blocker:
        if node.announced_blocker != node.join_blocker:
            node.announced_blocker = node.join_blocker
            cluster.events.append(
                ClusterEvent(
                    "Instance",
                    node.join_blocker,
                    level="Error",
                    group=node.group,
                    instance_id=node.instance_id,
                    metadata={"Instance": {"FailureMessage": node.join_blocker}},
                )
            )
        return  # what follows boot waits until the instance has joined
    elapsed = node.elapsed()
    for index in range(node.announced + 1, len(node.phases)):
        start = node.phases[index - 1].until
        if elapsed < start:
            break
        phase = node.phases[index]
        template = _PHASE_EVENTS.get(phase.status)
        if template:
            level, text = template
            if phase.status == "Running" and node.deep_health_checks and node.kind != "reboot":
                text = "Deep health checks passed on instance {id}; it is running."
            cluster.events.append(
                ClusterEvent(
                    "Instance",
                    text.format(id=node.instance_id, checks=", ".join(node.deep_health_checks), message=phase.message),
                    level=level,
                    group=node.group,
                    instance_id=node.instance_id,
                    time=node.wall_at(start),
                    metadata={"Instance": {"FailureMessage": phase.message}}
                    if phase.status == "Failure" and phase.message
                    else None,
                )
            )
        if phase.status == "Failure" and node.failed_at is None:
            node.failed_at = node.started + start  # when it failed, not when someone looked
        node.announced = index


def settle_cluster(backend: SageMakerModelBackend, cluster: HyperPodCluster) -> bool:
    """Apply every transition that is due; False when the cluster is gone (deletion finished)."""
    if cluster.deleting_since is not None:
        if (sim_now() - cluster.deleting_since) >= DURATIONS["cluster_delete"]:
            backend.clusters.pop(cluster.cluster_name, None)
            return False
        return True
    if cluster.failure and not cluster.failed:
        at, message, group_name = cluster.failure
        if (sim_now() - cluster.started) >= at:
            # AWS rolls a failed creation back: the instances are terminated.
            cluster.failed = True
            cluster.failure_message = message
            cluster.nodes.clear()
            for group in cluster.groups.values():
                if group.name == group_name:
                    group.failure = message
            cluster.event(
                "InstanceGroup",
                message,
                level="Error",
                group=group_name,
                metadata={"InstanceGroup": {"FailureMessage": message}},
            )
            cluster.event(
                "Cluster",
                f"Cluster {cluster.cluster_name} creation failed.",
                level="Error",
                metadata={"Cluster": {"FailureMessage": message}},
            )
            return True
    if cluster.failed:
        return True
    for group in list(cluster.groups.values()):
        deleting = group.deleting_since
        if deleting is not None and (sim_now() - deleting) >= DURATIONS["group_delete"]:
            for node in group_nodes(cluster, group.name):
                del cluster.nodes[node.instance_id]
            del cluster.groups[group.name]
            cluster.event("InstanceGroup", f"Instance group {group.name} was deleted.", group=group.name)
    blockers = _join_blockers(cluster)
    egress = _internet_egress(cluster)
    for node in list(cluster.nodes.values()):
        node.join_blocker = blockers.get(node.group)
        node.internet = egress.get(node.group, True)
        if not node.join_blocker and node.state()[0] != "Pending":
            node.joined = True
        _announce(cluster, node)
        if (
            node.state()[0] == "Failure"
            and cluster.node_recovery == "Automatic"
            and node.failed_at is not None
            and (sim_now() - node.failed_at) >= DURATIONS["auto_recovery"]
        ):
            replace_node(cluster, node, "automatic node recovery after a failed health check")
    update = cluster.software_update
    if update and not update.get("done") and not software_active(cluster):
        update["done"] = True
        finished = utcnow()
        for node in cluster.nodes.values():
            if node.group in update["groups"]:
                node.last_software_update = finished
        for name in update["groups"]:
            group = cluster.groups.get(name)
            if group and group.software:
                group.software["status"] = "Succeeded"
        cluster.patched_for_replace = True
        cluster.event("Cluster", "Cluster software update completed.")
    if not cluster.ever_in_service and all(
        group_status(cluster, group) in {"InService", "Degraded"} for group in cluster.groups.values()
    ):
        cluster.ever_in_service = True
        # Dated when the last instance came up, not when someone happened to look.
        ready = [
            n.wall_at(n.phases[-2].until)
            for n in cluster.nodes.values()
            if len(n.phases) > 1 and math.isfinite(n.phases[-2].until)
        ]
        cluster.event("Cluster", f"Cluster {cluster.cluster_name} is InService.", time=max(ready, default=utcnow()))
    for group in cluster.groups.values():
        if group.status_while_settling == "Creating" and group_status(cluster, group) in {"InService", "Degraded"}:
            group.status_while_settling = "Updating"
            cluster.event("InstanceGroup", f"Instance group {group.name} is InService.", group=group.name)
    for hook in SETTLE_HOOKS:
        hook(backend, cluster)
    return True


def _join_blockers(cluster: HyperPodCluster) -> dict[str, str | None]:
    """Per instance group, why its instances cannot join the EKS cluster (``sandbox.aws.hyperpod_network``)."""
    arn = ((cluster.orchestrator or {}).get("Eks") or {}).get("ClusterArn")
    match = EKS_ARN.match(arn or "")
    if not match:
        return {}
    try:
        from moto.eks.models import eks_backends

        eks_cluster = eks_backends[match["account"]][match["region"]].clusters.get(match["name"])
    except Exception:  # the EKS emulation is unavailable
        return {}
    if eks_cluster is None:
        return {}
    out: dict[str, str | None] = {}
    for group in cluster.groups.values():
        vpc = group.spec.get("OverrideVpcConfig") or cluster.vpc_config or {}
        out[group.name] = join_blocker(
            cluster.account_id,
            cluster.region_name,
            eks_cluster,
            list(vpc.get("Subnets") or []),
            list(vpc.get("SecurityGroupIds") or []),
        )
    return out


def _internet_egress(cluster: HyperPodCluster) -> dict[str, bool]:
    """Per instance group, whether its subnets route to the internet (``sandbox.aws.hyperpod_network``)."""
    out: dict[str, bool] = {}
    for group in cluster.groups.values():
        vpc = group.spec.get("OverrideVpcConfig") or cluster.vpc_config or {}
        out[group.name] = internet_egress(cluster.account_id, cluster.region_name, list(vpc.get("Subnets") or []))
    return out
