"""The HyperPod model: a node (cluster instance) following a schedule of phases on simulated time, an
instance group as given to CreateCluster/UpdateCluster, a cluster, and how their statuses derive from one
another (``group_status``, ``cluster_status``)."""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from moto.moto_api._internal import mock_random
from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws import clock
from sandbox.aws.sagemaker import autoscaling
from sandbox.aws.sagemaker.common import EKS_ARN, drop_empty, new_instance_id, random_id, utcnow
from sandbox.aws.sagemaker.durations import sim_now


@dataclass
class Phase:
    status: str
    until: float  # simulated seconds since the schedule started; math.inf for the last phase
    message: str = ""


@dataclass
class ClusterEvent:
    resource_type: str
    description: str
    level: str = "Info"
    group: str | None = None
    instance_id: str | None = None
    time: datetime = field(default_factory=utcnow)
    event_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    # DescribeClusterEvent's EventDetails.EventMetadata: {"Cluster"|"InstanceGroup"|"Instance": {...}}. The
    # failure's reason lives here (FailureMessage); ListClusterEvents' summaries do not carry it (API
    # reference, ClusterEventDetail vs ClusterEventSummary; HyperPod cluster events reference).
    metadata: dict[str, Any] | None = None


@dataclass
class OperationDetail:
    group: str
    original: dict[str, int]
    desired: dict[str, int]
    deleted: bool = False
    status: str = "InProgress"


@dataclass
class Operation:
    type: str
    details: list[OperationDetail] = field(default_factory=list)
    health_checks: list[dict[str, Any]] = field(default_factory=list)
    instance_ids: list[str] = field(default_factory=list)  # a deep health check's instances
    done: bool = False
    creation_time: datetime = field(default_factory=utcnow)
    operation_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def status(self) -> str:
        if self.type == "DeepHealthCheck":
            return "Done" if self.done else "InProgress"
        states = {d.status for d in self.details}
        if "InProgress" in states:
            return "InProgress"
        return "Superseded" if states == {"Superseded"} else "Done"


class HyperPodNode:
    """One cluster instance; its status follows a schedule of phases on simulated time."""

    def __init__(
        self,
        group: str,
        instance_type: str,
        placement: dict[str, str],
        phases: list[Phase],
        *,
        deep_health_checks: list[str] | None = None,
        kind: str = "launch",
    ) -> None:
        self.instance_id = new_instance_id()
        self.group = group
        self.instance_type = instance_type
        self.placement = placement
        self.launch_time = utcnow()
        octets = [mock_random.randint(1, 254) for _ in range(3)]
        self.private_ip = f"10.{octets[0]}.{octets[1]}.{octets[2]}"
        self.deep_health_checks = list(deep_health_checks or [])
        self.last_software_update: datetime | None = None
        self.failed_at: float | None = None
        # Why the instance cannot join its EKS cluster (set on every settle from the VPC); None: it can.
        self.join_blocker: str | None = None
        self.internet = True  # whether its subnet routes to the internet (public registries), not only to endpoints
        self.joined = False
        self.announced_blocker: str | None = None
        # MoveClusterNodes (``moves``): the training plan the instance's capacity came from once it left its
        # group ("" none; None: its group's), and where it goes once detached (cluster name, group).
        self.plan_arn: str | None = None
        self.move_to: tuple[str, str] | None = None
        self._restart(phases, kind)

    def _restart(self, phases: list[Phase], kind: str) -> None:
        self.phases = phases
        self.kind = kind  # launch | reboot | replace | scale | update | move: what the Pending phase means
        if kind not in ("reboot", "update"):
            self.joined = False
        self.started = sim_now()
        self.started_wall = utcnow()
        self.announced = 0  # phase boundaries already reported as events

    def elapsed(self) -> float:
        return sim_now() - self.started

    def state(self) -> tuple[str, str]:
        """(InstanceStatus.Status, Message) now."""
        status, message = self._scheduled()
        if self.join_blocker and not self.joined and status in ("Running", "DeepHealthCheckInProgress"):
            # Booted, but the kubelet cannot register: HyperPod keeps reporting the instance Pending.
            return "Pending", self.join_blocker
        return status, message

    def _scheduled(self) -> tuple[str, str]:
        elapsed = self.elapsed()
        for phase in self.phases:
            if elapsed < phase.until:
                return phase.status, phase.message
        return self.phases[-1].status, self.phases[-1].message

    def wall_at(self, sim_offset: float) -> datetime:
        return self.started_wall + timedelta(seconds=clock.real_seconds(sim_offset))

    @property
    def dns_name(self) -> str:
        return "ip-" + self.private_ip.replace(".", "-") + ".ec2.internal"


class InstanceGroup:
    """An instance group: its specification as given, plus what DescribeCluster derives from it."""

    def __init__(self, spec: dict[str, Any], status_while_settling: str) -> None:
        self.spec = copy.deepcopy(spec)
        self.status_while_settling = status_while_settling  # Creating for new groups, then Updating
        self.failure: str | None = None
        self.deleting_since: float | None = None
        self.software: dict[str, Any] | None = None  # ActiveSoftwareUpdateConfig + status
        self.created = utcnow()

    @property
    def name(self) -> str:
        return str(self.spec["InstanceGroupName"])

    @property
    def target(self) -> int:
        return int(self.spec.get("InstanceCount", 0))

    @property
    def instance_type(self) -> str:
        if self.spec.get("InstanceType"):
            return str(self.spec["InstanceType"])
        return str((self.spec.get("InstanceRequirements") or {}).get("InstanceTypes", ["ml.m5.xlarge"])[0])

    @property
    def instance_types(self) -> list[str]:
        """The group's types in HyperPod's order of preference (a flexible group's InstanceRequirements)."""
        if self.spec.get("InstanceType"):
            return [str(self.spec["InstanceType"])]
        return [str(t) for t in (self.spec.get("InstanceRequirements") or {}).get("InstanceTypes", ["ml.m5.xlarge"])]

    @property
    def deep_health_checks(self) -> list[str]:
        return list(self.spec.get("OnStartDeepHealthChecks") or [])


class HyperPodCluster:
    """A HyperPod cluster; keeps the attributes moto's tagging and listing code read."""

    def __init__(self, backend: SageMakerModelBackend, name: str, params: dict[str, Any]) -> None:
        self.account_id = backend.account_id
        self.region_name = backend.region_name
        self.partition = backend.partition
        self.cluster_name = name
        # AWS names clusters by a 12-character id in ARNs (the API's ClusterNameOrArn pattern says so).
        self.cluster_id = random_id(12)
        self.arn = (
            f"arn:{backend.partition}:sagemaker:{backend.region_name}:{backend.account_id}:cluster/{self.cluster_id}"
        )
        self.creation_time = utcnow()
        self.started = sim_now()
        self.tags = list(params.get("Tags") or [])
        self.vpc_config = params.get("VpcConfig")
        self.orchestrator = params.get("Orchestrator")
        self.node_recovery = params.get("NodeRecovery") or "Automatic"
        # A cluster created before BatchReplaceClusterNodes existed must be patched (UpdateClusterSoftware)
        # before nodes can be replaced (API reference, BatchReplaceClusterNodes). New clusters have the
        # platform that supports it; sandbox.aws.sagemaker.mark_unpatched makes one an older cluster.
        self.patched_for_replace = True
        self.settings: dict[str, Any] = {}
        for key in ("NodeProvisioningMode", "ClusterRole", "TieredStorageConfig", "AutoScaling"):
            if params.get(key) is not None:
                self.settings[key] = params[key]
        self.restricted = {
            key: params[key]
            for key in ("RestrictedInstanceGroups", "RestrictedInstanceGroupsConfig")
            if params.get(key) is not None
        }
        self.groups: dict[str, InstanceGroup] = {}
        self.nodes: dict[str, HyperPodNode] = {}
        self.events: list[ClusterEvent] = []
        self.ever_in_service = False
        self.failure: tuple[float, str, str] | None = None  # (sim offset, message, group) when a fault fires
        self.failed = False
        self.failure_message = ""
        self.deleting_since: float | None = None
        self.software_update: dict[str, Any] | None = None
        # AutoScaling's course: {"since": sim seconds, "failure": why HyperPod cannot use the role}.
        self.autoscaling: dict[str, Any] = {}
        self.operations: list[Operation] = []  # ListClusterOperations' records (sandbox.aws.sagemaker.operations)
        if (params.get("AutoScaling") or {}).get("Mode") == "Enable":
            self.autoscaling = {
                "since": self.started,
                "failure": autoscaling.role_problem(self.account_id, str(params.get("ClusterRole") or "")),
            }

    # moto's list_clusters and the tagging API read ``status``
    @property
    def status(self) -> str:
        return cluster_status(self)

    @property
    def eks_cluster_name(self) -> str | None:
        arn = ((self.orchestrator or {}).get("Eks") or {}).get("ClusterArn")
        match = EKS_ARN.match(arn or "")
        return match["name"] if match else None

    def event(self, resource_type: str, description: str, **kwargs: Any) -> None:
        self.events.append(ClusterEvent(resource_type, description, **kwargs))

    def summary(self) -> dict[str, Any]:
        plans = sorted({g.spec["TrainingPlanArn"] for g in self.groups.values() if g.spec.get("TrainingPlanArn")})
        return drop_empty(
            {
                "ClusterArn": self.arn,
                "ClusterName": self.cluster_name,
                "CreationTime": self.creation_time,
                "ClusterStatus": self.status,
                "TrainingPlanArns": plans or None,
            }
        )


def clusters_of(backend: SageMakerModelBackend) -> dict[str, Any]:
    """moto's cluster table (typed for its own Cluster), which holds HyperPodClusters here."""
    clusters: dict[str, Any] = backend.clusters
    return clusters


def hyperpod_clusters_of(backend: SageMakerModelBackend) -> list[HyperPodCluster]:
    """The HyperPod clusters of ``backend``, deleting ones included."""
    return [c for c in list(clusters_of(backend).values()) if isinstance(c, HyperPodCluster)]


# Statuses, derived from the nodes' phases whenever a cluster is looked at.


def is_settled(node: HyperPodNode) -> bool:
    return node.state()[0] in {"Running", "Failure"}


def group_nodes(cluster: HyperPodCluster, group: str) -> list[HyperPodNode]:
    return [node for node in cluster.nodes.values() if node.group == group]


def current_count(cluster: HyperPodCluster, group: InstanceGroup) -> int:
    """DescribeCluster's CurrentCount of a group: its instances that are up."""
    return sum(1 for node in group_nodes(cluster, group.name) if node.state()[0] in {"Running", "SystemUpdating"})


def software_active(cluster: HyperPodCluster) -> bool:
    update = cluster.software_update
    return update is not None and bool(update) and (sim_now() - update["started"]) < update["total"]


def group_status(cluster: HyperPodCluster, group: InstanceGroup) -> str:
    if group.deleting_since is not None:
        return "Deleting"
    if group.failure:
        return "Failed"
    if group.software and software_active(cluster):
        return "SystemUpdating"
    nodes = group_nodes(cluster, group.name)
    # With MinInstanceCount the group is InService once that many instances run, and HyperPod keeps
    # provisioning the rest in the background ("Continuous provisioning",
    # https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html).
    low = int(group.spec.get("MinInstanceCount") or 0)
    if low and current_count(cluster, group) >= low:
        return "Degraded" if any(node.state()[0] == "Failure" for node in nodes) else "InService"
    if len(nodes) != group.target or not all(is_settled(node) for node in nodes):
        return group.status_while_settling
    if any(node.state()[0] == "Failure" for node in nodes):
        return "Degraded"
    return "InService"


def cluster_status(cluster: HyperPodCluster) -> str:
    if cluster.deleting_since is not None:
        return "Deleting"
    if cluster.failed:
        return "Failed"
    groups = list(cluster.groups.values())
    if not cluster.ever_in_service:
        return "Creating"
    if software_active(cluster):
        return "SystemUpdating"
    if any(group_status(cluster, g) in {"Creating", "Updating", "Deleting"} for g in groups):
        return "Updating"
    return "InService"
