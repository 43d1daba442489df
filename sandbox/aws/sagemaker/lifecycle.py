"""Cluster lifecycle: announcing the nodes' phase changes as cluster events, health-based automatic recovery,
and ``settle_cluster``, which applies every transition that is due (deletions,
rolled-back creations, software updates, joining the EKS cluster) whenever a cluster is looked at."""

from __future__ import annotations

import math

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker import health_agent, operations
from sandbox.aws.sagemaker.common import EKS_ARN, utcnow
from sandbox.aws.sagemaker.durations import durations, sim_now
from sandbox.aws.sagemaker.models import (
    ClusterEvent,
    HyperPodCluster,
    HyperPodNode,
    group_nodes,
    group_status,
    software_active,
)
from sandbox.aws.sagemaker.network import internet_egress, join_blocker
from sandbox.aws.sagemaker.nodes import hand_off, replace_node

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
        if (sim_now() - cluster.deleting_since) >= durations()["cluster_delete"]:
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
        if deleting is not None and (sim_now() - deleting) >= durations()["group_delete"]:
            for node in group_nodes(cluster, group.name):
                del cluster.nodes[node.instance_id]
            del cluster.groups[group.name]
            cluster.event("InstanceGroup", f"Instance group {group.name} was deleted.", group=group.name)
    hand_off(backend.clusters, cluster)  # nodes MoveClusterNodes detached join their target group
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
            and (sim_now() - node.failed_at) >= durations()["auto_recovery"]
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
            updated = cluster.groups.get(name)
            if updated and updated.software:
                updated.software["status"] = "Succeeded"
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
    health_agent.settle(cluster)  # what reboots and replacements did to the faults the agent found
    operations.settle(cluster)  # after the nodes have moved on: the operations' records follow them
    return True


def _join_blockers(cluster: HyperPodCluster) -> dict[str, str | None]:
    """Per instance group, why its instances cannot join the EKS cluster (``network``)."""
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
    """Per instance group, whether its subnets route to the internet (``network``)."""
    out: dict[str, bool] = {}
    for group in cluster.groups.values():
        vpc = group.spec.get("OverrideVpcConfig") or cluster.vpc_config or {}
        out[group.name] = internet_egress(cluster.account_id, cluster.region_name, list(vpc.get("Subnets") or []))
    return out
