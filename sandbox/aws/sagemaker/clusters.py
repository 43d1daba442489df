"""Cluster lifecycle operations: CreateCluster, UpdateCluster (instance groups added, scaled, deleted),
UpdateClusterSoftware and DeleteCluster, with the account's quota and training-plan checks."""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from moto.sagemaker.exceptions import ConflictException, ResourceInUseException, ResourceNotFound
from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker import autoscaling, capacity, operations, training_plans
from sandbox.aws.sagemaker.common import CLUSTER_ARN, invalid, subnet_placements, utcnow
from sandbox.aws.sagemaker.durations import durations, sim_now
from sandbox.aws.sagemaker.faults import HYPERPOD_FAULTS, arm_fault
from sandbox.aws.sagemaker.lifecycle import settle_cluster
from sandbox.aws.sagemaker.models import (
    HyperPodCluster,
    InstanceGroup,
    Phase,
    cluster_status,
    clusters_of,
    group_nodes,
    hyperpod_clusters_of,
)
from sandbox.aws.sagemaker.nodes import add_nodes
from sandbox.aws.sagemaker.validation import (
    check_fixed_fields,
    require_name,
    validate_groups,
    validate_orchestrator,
)


def find_cluster(backend: SageMakerModelBackend, name_or_arn: str) -> HyperPodCluster:
    """The cluster named ``name_or_arn`` (or with that ARN), settled; ResourceNotFound if none."""
    cluster: Any = None
    if CLUSTER_ARN.match(name_or_arn or "") or (name_or_arn or "").startswith("arn:"):
        cluster = next((c for c in backend.clusters.values() if getattr(c, "arn", None) == name_or_arn), None)
    else:
        cluster = backend.clusters.get(name_or_arn)
    if not isinstance(cluster, HyperPodCluster) or not settle_cluster(backend, cluster):
        raise ResourceNotFound(message=f"Cluster {name_or_arn} not found.")
    return cluster


def create_cluster(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    name = str(params.get("ClusterName"))
    require_name(params.get("ClusterName"), "clusterName")
    if name in backend.clusters:
        raise ResourceInUseException(
            message=f"Resource Already Exists: Cluster with name {name} already exists. Choose a different name."
        )
    specs = params.get("InstanceGroups") or []
    if not specs and not params.get("RestrictedInstanceGroups"):
        raise invalid("At least one instance group must be specified in InstanceGroups.")
    orchestrator = params.get("Orchestrator")
    slurm = not (orchestrator or {}).get("Eks")
    validate_orchestrator(backend, orchestrator, params.get("VpcConfig"))
    validate_groups(backend, specs, slurm=slurm, continuous=params.get("NodeProvisioningMode") == "Continuous")
    # The account's cluster-usage quota binds CreateCluster as it binds UpdateCluster (``capacity``).
    asked: Counter[str] = Counter()
    for spec in specs:
        if spec.get("InstanceType"):
            asked[spec["InstanceType"]] += int(spec.get("InstanceCount") or 0)
    for instance_type, count in sorted(asked.items()):
        used = _targets(backend, _of_type(instance_type), ("", ""))
        capacity.check_quota(instance_type, used, count)
    fault = HYPERPOD_FAULTS._take()
    cluster = HyperPodCluster(backend, name, params)
    for spec in specs:  # a first group on a training plan: the plan serves its type, zone and count
        if spec.get("TrainingPlanArn") and spec.get("InstanceType"):
            arn = spec["TrainingPlanArn"]
            elsewhere = _targets(backend, _on_plan(arn), ("", ""))
            count = int(spec.get("InstanceCount") or 0)
            capacity.check_plan(backend, arn, spec["InstanceType"], _zones_of(cluster, spec), elsewhere, count)
    creation = durations()["cluster_create"]
    for spec in specs:
        group = InstanceGroup(spec, "Creating")
        cluster.groups[group.name] = group
        _launch(cluster, group, group.target, creation + _plan_wait(cluster, group), "launch")
    cluster.event("Cluster", f"Cluster {name} creation started.")
    if fault:
        arm_fault(cluster, fault)
    clusters_of(backend)[name] = cluster
    return cluster


def _of_type(instance_type: str) -> Callable[[InstanceGroup], bool]:
    return lambda group: group.instance_type == instance_type


def _on_plan(arn: str) -> Callable[[InstanceGroup], bool]:
    return lambda group: group.spec.get("TrainingPlanArn") == arn


def require_in_service(cluster: HyperPodCluster, operation: str) -> None:
    status = cluster_status(cluster)
    if status != "InService":
        # moto's ConflictException takes the message positionally only.
        raise ConflictException(
            f"Cannot {operation} cluster {cluster.cluster_name} while it is in {status} status; "
            "wait until it is InService."
        )


def hyperpod_clusters(backend: SageMakerModelBackend) -> list[HyperPodCluster]:
    return [c for c in hyperpod_clusters_of(backend) if c.deleting_since is None]


def _targets(backend: SageMakerModelBackend, match: Callable[[InstanceGroup], bool], skip: tuple[str, str]) -> int:
    """Instances asked for by the groups ``match`` accepts, across the account's clusters, but ``skip``."""
    return sum(
        g.target
        for c in hyperpod_clusters(backend)
        for g in c.groups.values()
        if g.deleting_since is None and (c.cluster_name, g.name) != skip and match(g)
    )


def _zones_of(cluster: HyperPodCluster, spec: dict[str, Any]) -> set[str]:
    subnets = ((spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    return {p["AvailabilityZone"] for p in subnet_placements(cluster.account_id, cluster.region_name, subnets)}


def check_capacity(backend: SageMakerModelBackend, cluster: HyperPodCluster, spec: dict[str, Any]) -> None:
    """The account's cluster-usage quota for the type, and the training plan the group names (``capacity``)."""
    existing = cluster.groups.get(spec["InstanceGroupName"])
    instance_type = spec.get("InstanceType") or (existing.instance_type if existing else None)
    if not instance_type:
        return
    key = (cluster.cluster_name, spec["InstanceGroupName"])
    count = int(spec.get("InstanceCount") or 0)
    before = existing.target if existing else 0
    others = _targets(backend, lambda g: g.instance_type == instance_type, key)
    capacity.check_quota(instance_type, others + before, count - before)
    arn = spec.get("TrainingPlanArn")
    if arn:
        elsewhere = _targets(backend, lambda g: g.spec.get("TrainingPlanArn") == arn, key)
        capacity.check_plan(backend, arn, instance_type, _zones_of(cluster, spec), elsewhere, count)


def add_capacity(cluster: HyperPodCluster, group: InstanceGroup, count: int) -> None:
    """Launch ``count`` instances for ``group``; a Spot group in a zone short of Spot capacity gets what is
    there and is Failed with EC2's insufficient-capacity words."""
    if "Spot" in (group.spec.get("CapacityRequirements") or {}):
        zone = sorted(_zones_of(cluster, group.spec))[0]
        available = capacity.spot_capacity(zone, group.instance_type)
        if available is not None:
            running = sum(
                1
                for n in cluster.nodes.values()
                if n.instance_type == group.instance_type
                and n.placement["AvailabilityZone"] == zone
                and "Spot" in ((cluster.groups.get(n.group) or group).spec.get("CapacityRequirements") or {})
            )
            granted = max(0, min(count, available - running))
            if granted < count:
                group.failure = (
                    f"InsufficientInstanceCapacity: There is not enough Spot capacity for {group.instance_type} in "
                    f"{zone} to launch {count - granted} more instance(s) for instance group {group.name}. Spot "
                    "capacity varies by Availability Zone and over time; try another zone, fewer instances, "
                    "On-Demand capacity or a training plan."
                )
                cluster.event(
                    "InstanceGroup",
                    group.failure,
                    level="Error",
                    group=group.name,
                    metadata={"InstanceGroup": {"FailureMessage": group.failure}},
                )
            count = granted
    _launch(cluster, group, count, durations()["scale_up"] + _plan_wait(cluster, group), "scale")


def _launch(cluster: HyperPodCluster, group: InstanceGroup, count: int, pending: float, kind: str) -> None:
    """``count`` On-Demand or plan instances for ``group``, type by type in its order: where a zone has no
    capacity left for a type (the sandbox's ``set_type_capacity``), a flexible group falls back to its next
    type, as HyperPod does ("HyperPod attempts to provision instances using the first instance type in the
    list and falls back to subsequent types if capacity is unavailable", API reference
    ClusterInstanceRequirements). What no type can give stays Pending while continuous provisioning keeps
    trying (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html)."""
    if "Spot" in (group.spec.get("CapacityRequirements") or {}):
        add_nodes(cluster, group, count, pending, kind)
        return
    zones = sorted(_zones_of(cluster, group.spec))
    zone = zones[0] if zones else f"{cluster.region_name}a"
    left = count
    for instance_type in group.instance_types:
        available = capacity.type_capacity(zone, instance_type)
        if available is None:
            granted = left
        else:
            running = sum(
                1
                for n in cluster.nodes.values()
                if n.instance_type == instance_type
                and n.placement["AvailabilityZone"] == zone
                and "Spot" not in ((cluster.groups.get(n.group) or group).spec.get("CapacityRequirements") or {})
            )
            granted = max(0, min(left, available - running))
        if granted < left:
            text = (
                f"Insufficient capacity for {instance_type} in {zone} for instance group {group.name}: "
                f"{left - granted} instance(s) could not be launched"
                + (", trying the next instance type." if instance_type != group.instance_types[-1] else ".")
            )
            cluster.event("InstanceGroup", text, level="Warn", group=group.name)
        if granted:
            add_nodes(cluster, group, granted, pending, kind, instance_type=instance_type)
        left -= granted
        if not left:
            return
    for node in add_nodes(cluster, group, left, pending, kind, instance_type=group.instance_types[0]):
        node.phases = [
            Phase("Pending", math.inf, f"Waiting for {' or '.join(group.instance_types)} capacity in {zone}")
        ]


def _plan_wait(cluster: HyperPodCluster, group: InstanceGroup) -> float:
    """A group on a training plan that has not started gets its instances when the plan starts."""
    arn = group.spec.get("TrainingPlanArn")
    if not arn:
        return 0.0
    from moto.sagemaker.models import sagemaker_backends

    return training_plans.seconds_to_start(sagemaker_backends[cluster.account_id][cluster.region_name], arn)


def update_cluster(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    cluster = find_cluster(backend, params["ClusterName"])
    require_in_service(cluster, "update")
    specs = params.get("InstanceGroups") or []
    to_delete = params.get("InstanceGroupsToDelete") or []
    orchestrator = params.get("Orchestrator") or cluster.orchestrator
    mode = params.get("NodeProvisioningMode") or cluster.settings.get("NodeProvisioningMode")
    validate_groups(backend, specs, slurm=not (orchestrator or {}).get("Eks"), continuous=mode == "Continuous")
    autoscaling.check_request(params, cluster.settings, bool((orchestrator or {}).get("Eks")))
    for name in to_delete:
        if name not in cluster.groups:
            raise invalid(f"Instance group {name} does not exist in cluster {cluster.cluster_name}.")
        if any(spec["InstanceGroupName"] == name for spec in specs):
            raise invalid(f"Instance group {name} cannot be both updated and deleted in one request.")
    for spec in specs:
        existing = cluster.groups.get(spec["InstanceGroupName"])
        if existing:
            check_fixed_fields(existing, spec)
        check_capacity(backend, cluster, spec)
    counts_before = operations.counts_before_update(cluster)  # the request has passed validation
    for spec in specs:
        existing = cluster.groups.get(spec["InstanceGroupName"])
        if existing is None:
            group = InstanceGroup(spec, "Creating")
            cluster.groups[group.name] = group
            add_capacity(cluster, group, group.target)
            cluster.event("InstanceGroup", f"Instance group {group.name} creation started.", group=group.name)
            continue
        before = len(group_nodes(cluster, existing.name))
        existing.spec = copy.deepcopy(spec)
        existing.status_while_settling = "Updating"
        if existing.target > before:
            add_capacity(cluster, existing, existing.target - before)
        elif existing.target < before:
            # Scale-down removes the newest instances first; a flexible group's lowest-priority type goes first
            # (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html).
            order = existing.instance_types
            nodes = sorted(
                group_nodes(cluster, existing.name),
                key=lambda n: (order.index(n.instance_type) if n.instance_type in order else -1, n.launch_time),
                reverse=True,
            )
            for node in nodes[: before - existing.target]:
                del cluster.nodes[node.instance_id]
        cluster.event(
            "InstanceGroup",
            f"Instance group {existing.name} is being updated ({before} -> {existing.target} instances).",
            group=existing.name,
        )
    for name in to_delete:
        cluster.groups[name].deleting_since = sim_now()
        for node in group_nodes(cluster, name):
            node.phases = [Phase("ShuttingDown", math.inf, "")]
        cluster.event("InstanceGroup", f"Instance group {name} is being deleted.", group=name)
    if params.get("NodeRecovery"):
        cluster.node_recovery = params["NodeRecovery"]
    if params.get("Orchestrator"):
        cluster.orchestrator = params["Orchestrator"]
    for key in ("NodeProvisioningMode", "ClusterRole", "TieredStorageConfig", "AutoScaling"):
        if params.get(key) is not None:
            cluster.settings[key] = params[key]
    for key in ("RestrictedInstanceGroups", "RestrictedInstanceGroupsConfig"):
        if params.get(key) is not None:
            cluster.restricted[key] = params[key]
    if params.get("AutoScaling"):
        enable = params["AutoScaling"].get("Mode") == "Enable"
        role = str(cluster.settings.get("ClusterRole") or "")
        cluster.autoscaling = {
            "since": sim_now(),
            "failure": autoscaling.role_problem(cluster.account_id, role) if enable else None,
        }
        cluster.event("Cluster", f"Cluster autoscaling {'enable' if enable else 'disable'} started (Karpenter).")
    operations.record_update(cluster, params, counts_before)  # one Scaling operation, once it has applied
    return cluster


def _batch_size(policy: dict[str, Any] | None, count: int) -> int:
    size = (policy or {}).get("MaximumBatchSize") or {}
    value = int(size.get("Value") or 0)
    if not value:
        return max(count, 1)
    if size.get("Type") == "CAPACITY_PERCENTAGE":
        return max(1, math.ceil(count * value / 100))
    return max(1, value)


def update_cluster_software(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    cluster = find_cluster(backend, params["ClusterName"])
    require_in_service(cluster, "update the software of")
    requested = params.get("InstanceGroups") or [{"InstanceGroupName": g} for g in cluster.groups]
    for item in requested:
        if item["InstanceGroupName"] not in cluster.groups:
            raise invalid(
                f"Instance group {item['InstanceGroupName']} does not exist in cluster {cluster.cluster_name}."
            )
    deployment = params.get("DeploymentConfig") or {}
    per_batch = durations()["software_update"]
    wait = float(deployment.get("WaitIntervalInSeconds") or 0)
    total = 0.0
    for item in requested:
        group = cluster.groups[item["InstanceGroupName"]]
        # Instances that are rebooting, replacing or failed keep their own course.
        nodes = sorted(
            (n for n in group_nodes(cluster, group.name) if n.state()[0] == "Running"), key=lambda n: n.launch_time
        )
        size = _batch_size(deployment.get("RollingUpdatePolicy"), len(nodes))
        for index, node in enumerate(nodes):
            start = (index // size) * (per_batch + wait)
            node.phases = [
                Phase("Running", start),
                Phase("SystemUpdating", start + per_batch, "Updating the HyperPod platform software"),
                Phase("Running", math.inf),
            ]
            node.kind = "update"
            node.started, node.started_wall, node.announced = sim_now(), utcnow(), len(node.phases) - 1
            total = max(total, start + per_batch)
        group.software = {"config": deployment or None, "status": "InProgress"}
        if item.get("ImageReleaseVersion"):
            group.spec["ImageReleaseVersion"] = item["ImageReleaseVersion"]
        if params.get("ImageId"):
            group.spec["ImageId"] = params["ImageId"]
    cluster.software_update = {
        "started": sim_now(),
        "total": max(total, per_batch),
        "groups": [item["InstanceGroupName"] for item in requested],
    }
    cluster.event("Cluster", "Cluster software update started.")
    return cluster


def delete_cluster(backend: SageMakerModelBackend, name_or_arn: str) -> HyperPodCluster:
    cluster = find_cluster(backend, name_or_arn)
    if cluster.deleting_since is None:
        cluster.deleting_since = sim_now()
        for node in cluster.nodes.values():
            node.phases = [Phase("ShuttingDown", math.inf, "")]
        cluster.event("Cluster", f"Cluster {cluster.cluster_name} deletion started.")
    return cluster
