"""moto extensions that make SageMaker HyperPod behave like the service Launchpod drives.

Stock moto 5.2.5 creates HyperPod clusters InService at once, drops ``Orchestrator``, ``NodeRecovery`` and
most instance-group fields, checks instance types against a list that lacks ml.p5en/ml.p6/ml.trn2/ml.g6e,
names nodes ``<group>-<n>`` and answers NotImplementedError for UpdateCluster, UpdateClusterSoftware and
the batch node operations. ``install()`` replaces moto's cluster operations with a model that keeps every
field botocore's ``sagemaker`` model allows and runs on simulated time (``sandbox.aws.clock``):

* CreateCluster: ClusterStatus Creating -> InService once every instance is up (``cluster_create``,
  900 simulated seconds, see ``set_cluster_creation_seconds``); instance groups Creating -> InService;
  instances ``i-<17 hex>`` go Pending -> Running, with a DeepHealthCheckInProgress phase first
  (``deep_health_check``, 600 s) when the group asks for ``OnStartDeepHealthChecks``; ``CurrentCount``
  counts running instances, so it reaches ``TargetCount`` at InService.
* UpdateCluster upserts instance groups (new ones Creating, scaled ones Updating; added instances take
  ``scale_up`` seconds; scale-down removes the newest instances), deletes ``InstanceGroupsToDelete``
  (Deleting for ``group_delete`` seconds) and changes NodeRecovery and the other cluster settings.
  ClusterStatus is Updating until the groups settle. A listed group's specification replaces the old one as
  given (a field left out is reset). A group's fixed fields (InstanceType, CapacityRequirements,
  NetworkInterface, OverrideVpcConfig subnets) are refused with a ValidationException naming the field; a
  second UpdateCluster while the cluster is not InService is a ConflictException (one update at a time).
* UpdateClusterSoftware: SystemUpdating, in rolling batches when ``DeploymentConfig`` says so
  (``software_update`` seconds per batch plus ``WaitIntervalInSeconds``), then InService.
* BatchRebootClusterNodes (Pending for ``reboot`` seconds, same instance), BatchReplaceClusterNodes (a new
  instance id, ``replace`` seconds, deep health checks again if configured), BatchDeleteClusterNodes
  (gone at once; TargetCount decreases). Unknown ids are listed in ``Failed`` with
  ``InstanceIdNotFound`` / ``NodeIdNotFound``, instances that are not up with ``InvalidInstanceStatus`` /
  ``InvalidNodeStatus``, as botocore's error-code enums name them.
* DeleteCluster: Deleting for ``cluster_delete`` seconds, then DescribeCluster answers ``ResourceNotFound``
  (the only error botocore lists for it; moto said ValidationException).
* ListClusterEvents / DescribeClusterEvent report creation, health checks, failures and node operations.

Validation (``ValidationException`` with AWS's wording): cluster and group names follow
``[a-zA-Z0-9](-*[a-zA-Z0-9])*``; InstanceType must be in botocore's ``ClusterInstanceType`` enum (read
from the installed botocore, so new types come for free); ExecutionRole and ``Orchestrator.Eks.ClusterArn``
must be ARNs of the right form, and the EKS cluster must exist in the emulated EKS. The lifecycle-script
rule kept is AWS's: ``LifeCycleConfig`` is required for Slurm clusters and optional for EKS ones (AWS made
lifecycle scripts optional for EKS in 2025), ``SourceS3Uri`` must be an ``s3://<bucket>/...`` URI, and the
bucket must start with ``sagemaker-`` (the prefix the managed ``AmazonSageMakerClusterInstanceRolePolicy``
grants) unless the execution role, as stored in the emulated IAM, has its own policy allowing
``s3:GetObject`` on that bucket. moto enforced the prefix unconditionally.

Faults (``HYPERPOD_FAULTS.fail_next_create(kind)``, one-shot, consumed by the next CreateCluster):
``capacity`` fails the cluster (Creating -> Failed after 30% of the creation time) with EC2's insufficient
capacity wording; ``lifecycle_script`` fails it after 60% with the CloudWatch log group to read, as AWS
rolls back a cluster whose lifecycle script failed (instances are removed, the group is Failed);
``deep_health_check`` keeps the cluster: one instance fails its deep health check, so it is reported
``Failure`` with the check's message, its Kubernetes Node is labelled ``UnschedulablePendingReplacement``
and ``deep-health-check-status: Failed``, its group is ``Degraded``, and, as HyperPod does with
``NodeRecovery: Automatic``, it is replaced ``auto_recovery`` seconds later (with ``None`` it stays until
BatchReplaceClusterNodes or BatchDeleteClusterNodes).

Kubernetes: ``set_node_sink(fn)`` makes every state change of a cluster orchestrated by EKS cluster X call
``fn(X, nodes)`` with the full desired list of Node objects of the HyperPod clusters attached to X (names
``hyperpod-<instance id>``, HyperPod's labels, GPU/Neuron/EFA capacity); ``kube_node_sink(fleet)`` is a
ready-made ``fn`` for ``sandbox.kube.KubeFleet``. State advances lazily, when a cluster is described,
listed or changed, like moto's ManagedState.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import hashlib
import json
import logging
import math
import re
import string
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, get_args

from moto.core.responses import ActionResult
from moto.moto_api._internal import mock_random
from moto.sagemaker.exceptions import (
    ConflictException,
    ResourceInUseException,
    ResourceNotFound,
    ValidationError,
)
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws import capacity, clock
from sandbox.aws import hyperpod_autoscaling as autoscaling
from sandbox.aws.hyperpod_instances import shape_of
from sandbox.aws.hyperpod_network import internet_egress, join_blocker
from sandbox.images import INTERNET_ANNOTATION

log = logging.getLogger("sandbox.aws.sagemaker")

# ============================================================================ configuration

#: Simulated seconds each transition takes (``set_durations`` changes them).
DEFAULT_DURATIONS: dict[str, float] = {
    "cluster_create": 900.0,  # a new cluster's instances: Pending -> Running
    "scale_up": 600.0,  # instances added by UpdateCluster
    "deep_health_check": 600.0,  # DeepHealthCheckInProgress, when OnStartDeepHealthChecks is set
    # AWS's figures for HyperPod node recovery: a reboot takes about 1-3 minutes, a replacement about 20-30
    # (the nodes issue quotes them; "Manually quarantine, replace, or reboot a node" gives no number).
    "reboot": 120.0,
    "replace": 1500.0,
    "software_update": 600.0,  # one rolling batch of UpdateClusterSoftware
    "group_delete": 300.0,
    "cluster_delete": 300.0,
    "auto_recovery": 300.0,  # NodeRecovery=Automatic: a failed instance is replaced after this
}
_durations = dict(DEFAULT_DURATIONS)
_lock = threading.RLock()

COMPUTE_TYPE_LABEL = "sagemaker.amazonaws.com/compute-type"
CLUSTER_NAME_LABEL = "sagemaker.amazonaws.com/cluster-name"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
NODE_PREFIX = "hyperpod-"

FaultKind = Literal["capacity", "lifecycle_script", "deep_health_check"]

_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_ROLE_ARN = re.compile(r"^arn:aws[a-z\-]*:iam::(?P<account>\d{12}):role/?(?P<name>[a-zA-Z_0-9+=,.@\-_/]+)$")
# The Kubernetes versions HyperPod attaches to ("Kubernetes version support",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html): CreateCluster
# refuses an EKS cluster at any other version (1.35, which EKS offers, is not listed yet).
HYPERPOD_KUBERNETES_VERSIONS: tuple[str, ...] = ("1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34")

_EKS_ARN = re.compile(
    r"^arn:aws[a-z\-]*:eks:(?P<region>[a-z0-9\-]*):(?P<account>[0-9]{12}):cluster/"
    r"(?P<name>[0-9A-Za-z][A-Za-z0-9\-_]{0,99})$"
)
_CLUSTER_ARN = re.compile(r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:cluster/(?P<id>[a-z0-9]{12})$")
_S3_URI = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(/.*)?$")


def set_cluster_creation_seconds(sim_seconds: float) -> None:
    """How long a new cluster's instances take to come up, in simulated seconds (default 900)."""
    set_durations(cluster_create=sim_seconds)


def set_durations(**sim_seconds: float) -> None:
    """Change transition durations (simulated seconds); keys are those of ``DEFAULT_DURATIONS``."""
    unknown = set(sim_seconds) - set(DEFAULT_DURATIONS)
    if unknown:
        raise ValueError(f"unknown durations {sorted(unknown)}; known: {sorted(DEFAULT_DURATIONS)}")
    for key, value in sim_seconds.items():
        if value < 0:
            raise ValueError(f"{key} must be >= 0, got {value!r}")
        _durations[key] = float(value)


def describe_durations() -> dict[str, float]:
    """The current transition durations in simulated seconds."""
    return dict(_durations)


def reset_durations() -> None:
    """Put every duration back to ``DEFAULT_DURATIONS``."""
    _durations.update(DEFAULT_DURATIONS)


@functools.cache
def _service_model() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("sagemaker")


@functools.cache
def instance_types() -> tuple[str, ...]:
    """botocore's ``ClusterInstanceType`` enum: the instance types HyperPod accepts."""
    return tuple(_service_model().shape_for("ClusterInstanceType").enum)


@functools.cache
def _detail_members() -> frozenset[str]:
    return frozenset(_service_model().shape_for("ClusterInstanceGroupDetails").members)


_sim_lock = threading.Lock()
_sim_clock = {"sim": 0.0, "real": time.monotonic()}


def sim_now() -> float:
    """Simulated seconds since import, integrated over time-scale changes so it never runs backwards.

    ``clock.sim_seconds_elapsed`` divides a whole real interval by the *current* scale, so speeding the
    clock up mid-test would send a Running instance back to Pending; integrating piecewise avoids that.
    """
    with _sim_lock:
        now = time.monotonic()
        _sim_clock["sim"] += (now - _sim_clock["real"]) / clock.get_time_scale()
        _sim_clock["real"] = now
        return _sim_clock["sim"]


# ============================================================================ faults


class HyperPodFaults:
    """One-shot HyperPod failures for the next CreateCluster; thread-safe; use ``HYPERPOD_FAULTS``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: tuple[FaultKind, str | None] | None = None
        self._injected: Counter[str] = Counter()

    def fail_next_create(self, kind: FaultKind, message: str | None = None) -> None:
        """Make the next CreateCluster fail with ``kind``; ``message`` replaces the default wording."""
        if kind not in get_args(FaultKind):
            raise ValueError(f"kind must be one of {list(get_args(FaultKind))}, got {kind!r}")
        with self._lock:
            self._armed = (kind, message)

    def clear(self) -> None:
        """Disarm the fault and zero the counters."""
        with self._lock:
            self._armed = None
            self._injected.clear()

    def describe(self) -> dict[str, Any]:
        """The armed fault and how many were injected, as a JSON-able dict."""
        with self._lock:
            return {
                "armed": self._armed[0] if self._armed else None,
                "message": self._armed[1] if self._armed else None,
                "injected": dict(self._injected),
            }

    def _take(self) -> tuple[FaultKind, str | None] | None:
        with self._lock:
            armed, self._armed = self._armed, None
            if armed:
                self._injected[armed[0]] += 1
            return armed


HYPERPOD_FAULTS = HyperPodFaults()

# ============================================================================ helpers


def _now() -> datetime:
    return datetime.now(UTC)


def _random_id(length: int, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    return "".join(mock_random.choice(alphabet) for _ in range(length))


def _instance_id() -> str:
    return "i-" + _random_id(17, "0123456789abcdef")


def _invalid(message: str) -> ValidationError:
    return ValidationError(message=message)


def _paginate(items: list[Any], max_results: Any, next_token: Any) -> tuple[list[Any], str | None]:
    start = int(next_token) if next_token not in (None, "") and str(next_token).isdigit() else 0
    size = int(max_results) if max_results not in (None, "") else 100
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _drop_empty(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


@dataclass
class _Phase:
    status: str
    until: float  # simulated seconds since the schedule started; math.inf for the last phase
    message: str = ""


@dataclass
class _Event:
    resource_type: str
    description: str
    level: str = "Info"
    group: str | None = None
    instance_id: str | None = None
    time: datetime = field(default_factory=_now)
    event_id: str = field(default_factory=lambda: str(uuid.uuid4()))


def _zones(region: str) -> list[tuple[str, str]]:
    """(zone name, zone id) pairs of ``region`` as moto's EC2 knows them."""
    try:
        from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend

        zones = [(zone.name, zone.zone_id) for zone in RegionsAndZonesBackend.zones.get(region, [])]
    except Exception:  # moto internals moved: fall back to a plausible single zone
        zones = []
    return zones or [(f"{region}a", f"{region[:2]}{region.split('-')[1][0]}1-az1")]


def _placements(account: str, region: str, subnets: Iterable[str]) -> list[dict[str, str]]:
    """One Placement per subnet (its AZ in moto's EC2), or the region's first zone."""
    out = []
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[account][region]
        for subnet_id in subnets:
            try:
                subnet = ec2.get_subnet(subnet_id)
            except Exception:  # a subnet moto's EC2 does not know: place by zone list below
                continue
            zone = subnet.availability_zone
            zone_id = getattr(subnet, "availability_zone_id", None) or dict(_zones(region)).get(zone, "")
            out.append({"AvailabilityZone": zone, "AvailabilityZoneId": zone_id})
    except Exception:
        out = []
    if not out:
        name, zone_id = _zones(region)[0]
        out = [{"AvailabilityZone": name, "AvailabilityZoneId": zone_id}]
    return out


# ============================================================================ models


class HyperPodNode:
    """One cluster instance; its status follows a schedule of phases on simulated time."""

    def __init__(
        self,
        group: str,
        instance_type: str,
        placement: dict[str, str],
        phases: list[_Phase],
        *,
        deep_health_checks: list[str] | None = None,
        kind: str = "launch",
    ) -> None:
        self.instance_id = _instance_id()
        self.group = group
        self.instance_type = instance_type
        self.placement = placement
        self.launch_time = _now()
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
        self._restart(phases, kind)

    def _restart(self, phases: list[_Phase], kind: str) -> None:
        self.phases = phases
        self.kind = kind  # launch | reboot | replace | scale | update: what the Pending phase means
        if kind not in ("reboot", "update"):
            self.joined = False
        self.started = sim_now()
        self.started_wall = _now()
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

    @property
    def name(self) -> str:
        return self.spec["InstanceGroupName"]

    @property
    def target(self) -> int:
        return int(self.spec.get("InstanceCount", 0))

    @property
    def instance_type(self) -> str:
        if self.spec.get("InstanceType"):
            return self.spec["InstanceType"]
        return (self.spec.get("InstanceRequirements") or {}).get("InstanceTypes", ["ml.m5.xlarge"])[0]

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
        self.cluster_id = _random_id(12)
        self.arn = (
            f"arn:{backend.partition}:sagemaker:{backend.region_name}:{backend.account_id}:cluster/{self.cluster_id}"
        )
        self.creation_time = _now()
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
        self.events: list[_Event] = []
        self.ever_in_service = False
        self.failure: tuple[float, str, str] | None = None  # (sim offset, message, group) when a fault fires
        self.failed = False
        self.failure_message = ""
        self.deleting_since: float | None = None
        self.software_update: dict[str, Any] | None = None
        # AutoScaling's course: {"since": sim seconds, "failure": why HyperPod cannot use the role}.
        self.autoscaling: dict[str, Any] = {}
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
        match = _EKS_ARN.match(arn or "")
        return match["name"] if match else None

    def event(self, resource_type: str, description: str, **kwargs: Any) -> None:
        self.events.append(_Event(resource_type, description, **kwargs))

    def summary(self) -> dict[str, Any]:
        plans = sorted({g.spec["TrainingPlanArn"] for g in self.groups.values() if g.spec.get("TrainingPlanArn")})
        return _drop_empty(
            {
                "ClusterArn": self.arn,
                "ClusterName": self.cluster_name,
                "CreationTime": self.creation_time,
                "ClusterStatus": self.status,
                "TrainingPlanArns": plans or None,
            }
        )


# ============================================================================ state


def _settled(node: HyperPodNode) -> bool:
    return node.state()[0] in {"Running", "Failure"}


def _group_nodes(cluster: HyperPodCluster, group: str) -> list[HyperPodNode]:
    return [node for node in cluster.nodes.values() if node.group == group]


def _software_active(cluster: HyperPodCluster) -> bool:
    update = cluster.software_update
    return bool(update) and (sim_now() - update["started"]) < update["total"]


def group_status(cluster: HyperPodCluster, group: InstanceGroup) -> str:
    if group.deleting_since is not None:
        return "Deleting"
    if group.failure:
        return "Failed"
    if group.software and _software_active(cluster):
        return "SystemUpdating"
    nodes = _group_nodes(cluster, group.name)
    if len(nodes) != group.target or not all(_settled(node) for node in nodes):
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
    if _software_active(cluster):
        return "SystemUpdating"
    if any(group_status(cluster, g) in {"Creating", "Updating", "Deleting"} for g in groups):
        return "Updating"
    return "InService"


def _launch_phases(
    pending: float, deep_checks: list[str], failure: str | None = None, pending_message: str = ""
) -> list[_Phase]:
    phases = [_Phase("Pending", pending, pending_message)]
    if deep_checks:
        phases.append(
            _Phase(
                "DeepHealthCheckInProgress",
                pending + _durations["deep_health_check"],
                "Deep health checks in progress: " + ", ".join(deep_checks),
            )
        )
    phases.append(_Phase("Failure" if failure else "Running", math.inf, failure or ""))
    return phases


def _deep_health_failure(node_id: str, checks: list[str], recovery: str) -> str:
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


def _add_nodes(
    cluster: HyperPodCluster, group: InstanceGroup, count: int, pending: float, kind: str
) -> list[HyperPodNode]:
    subnets = ((group.spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    placements = _placements(cluster.account_id, cluster.region_name, subnets)
    existing = len(_group_nodes(cluster, group.name))
    added = []
    for i in range(count):
        node = HyperPodNode(
            group.name,
            group.instance_type,
            placements[(existing + i) % len(placements)],
            _launch_phases(pending, group.deep_health_checks),
            deep_health_checks=group.deep_health_checks,
            kind=kind,
        )
        cluster.nodes[node.instance_id] = node
        added.append(node)
    return added


def _replace_node(cluster: HyperPodCluster, node: HyperPodNode, reason: str) -> HyperPodNode:
    """Terminate ``node`` and start a fresh instance in its group and zone."""
    del cluster.nodes[node.instance_id]
    group = cluster.groups.get(node.group)
    checks = group.deep_health_checks if group else node.deep_health_checks
    fresh = HyperPodNode(
        node.group,
        node.instance_type,
        node.placement,
        _launch_phases(_durations["replace"], checks, pending_message=f"Replacing instance {node.instance_id}"),
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
                _Event("Instance", node.join_blocker, level="Error", group=node.group, instance_id=node.instance_id)
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
                _Event(
                    "Instance",
                    text.format(id=node.instance_id, checks=", ".join(node.deep_health_checks), message=phase.message),
                    level=level,
                    group=node.group,
                    instance_id=node.instance_id,
                    time=node.wall_at(start),
                )
            )
        if phase.status == "Failure" and node.failed_at is None:
            node.failed_at = node.started + start  # when it failed, not when someone looked
        node.announced = index


def _settle(backend: SageMakerModelBackend, cluster: HyperPodCluster) -> bool:
    """Apply every transition that is due; False when the cluster is gone (deletion finished)."""
    if cluster.deleting_since is not None:
        if (sim_now() - cluster.deleting_since) >= _durations["cluster_delete"]:
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
            cluster.event("InstanceGroup", message, level="Error", group=group_name)
            cluster.event("Cluster", f"Cluster {cluster.cluster_name} creation failed.", level="Error")
            return True
    if cluster.failed:
        return True
    for group in list(cluster.groups.values()):
        deleting = group.deleting_since
        if deleting is not None and (sim_now() - deleting) >= _durations["group_delete"]:
            for node in _group_nodes(cluster, group.name):
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
            and (sim_now() - node.failed_at) >= _durations["auto_recovery"]
        ):
            _replace_node(cluster, node, "automatic node recovery after a failed health check")
    update = cluster.software_update
    if update and not update.get("done") and not _software_active(cluster):
        update["done"] = True
        finished = _now()
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
        cluster.event("Cluster", f"Cluster {cluster.cluster_name} is InService.", time=max(ready, default=_now()))
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
    match = _EKS_ARN.match(arn or "")
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


# ============================================================================ Kubernetes Nodes

_node_sink: Callable[[str, list[dict[str, Any]]], None] | None = None
_pushed: dict[tuple[str, str, str], str] = {}  # (account, region, EKS cluster) -> digest of the last list sent


def mark_unpatched(cluster_name: str) -> None:
    """Make a HyperPod cluster one created before BatchReplaceClusterNodes existed (a sandbox fault);
    ValueError when no such cluster exists."""
    from moto.sagemaker.models import sagemaker_backends

    with _lock:
        for account in list(sagemaker_backends.keys()):
            for region in list(sagemaker_backends[account].keys()):
                cluster = sagemaker_backends[account][region].clusters.get(cluster_name)
                if isinstance(cluster, HyperPodCluster):
                    cluster.patched_for_replace = False
                    return
    raise ValueError(f"no HyperPod cluster {cluster_name}")


def set_node_sink(fn: Callable[[str, list[dict[str, Any]]], None] | None) -> None:
    """Call ``fn(eks_cluster_name, nodes)`` whenever the HyperPod Nodes of an EKS cluster change."""
    global _node_sink
    with _lock:
        _node_sink = fn
        _pushed.clear()


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


def _internet_egress(cluster: HyperPodCluster) -> dict[str, bool]:
    """Per instance group, whether its subnets route to the internet (``sandbox.aws.hyperpod_network``)."""
    out: dict[str, bool] = {}
    for group in cluster.groups.values():
        vpc = group.spec.get("OverrideVpcConfig") or cluster.vpc_config or {}
        out[group.name] = internet_egress(cluster.account_id, cluster.region_name, list(vpc.get("Subnets") or []))
    return out


def _visible(node: HyperPodNode) -> bool:
    """Whether the instance has joined the EKS cluster (it joins once its lifecycle setup is done)."""
    status, _ = node.state()
    if status == "ShuttingDown":  # drained and deregistered before the instance terminates
        return False
    return status != "Pending" or node.kind == "reboot"


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
    }
    if deep:
        labels[DEEP_HEALTH_LABEL] = deep
    kubernetes_config = (group.spec.get("KubernetesConfig") if group else None) or {}
    labels.update(kubernetes_config.get("Labels") or {})
    taints = [
        _drop_empty({"key": t.get("Key"), "value": t.get("Value"), "effect": t.get("Effect")})
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
            "capacity": shape.capacity(),
            "allocatable": shape.allocatable(),
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
    for decorate in NODE_DECORATORS:  # e.g. sandbox.aws.node_faults: the health agent's verdict on a fault
        decorate(cluster, node, obj)
    return obj


#: ``fn(cluster, node, node_object)`` hooks that amend each Kubernetes Node; ``fn(backend, cluster)``
#: hooks run on every settle (both kept by modules such as ``sandbox.aws.node_faults``).
NODE_DECORATORS: list[Callable[[Any, Any, dict[str, Any]], None]] = []
SETTLE_HOOKS: list[Callable[[Any, Any], None]] = []


def _eks_version(cluster: HyperPodCluster) -> str | None:
    arn = ((cluster.orchestrator or {}).get("Eks") or {}).get("ClusterArn")
    match = _EKS_ARN.match(arn or "")
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
    out = []
    for cluster in backend.clusters.values():
        if not isinstance(cluster, HyperPodCluster) or cluster.eks_cluster_name != eks_cluster:
            continue
        if cluster.deleting_since is not None or cluster.failed:
            continue
        out.extend(node_object(cluster, n) for n in cluster.nodes.values() if _visible(n))
    return sorted(out, key=lambda obj: obj["metadata"]["name"])


def _pending_pushes(backend: SageMakerModelBackend, eks_clusters: Iterable[str]) -> list[tuple[Any, ...]]:
    """(key, EKS cluster, nodes, digest) for the EKS clusters whose Node list changed (call under lock)."""
    if _node_sink is None:
        return []
    out = []
    for eks_cluster in sorted(set(eks_clusters)):
        nodes = desired_nodes(backend, eks_cluster)
        digest = hashlib.sha256(json.dumps(nodes, sort_keys=True).encode()).hexdigest()
        key = (backend.account_id, backend.region_name, eks_cluster)
        if _pushed.get(key) != digest:
            out.append((key, eks_cluster, nodes, digest))
    return out


def _push(pending: list[tuple[Any, ...]]) -> None:
    """Hand changed Node lists to the sink, outside the lock (the sink may block on another thread)."""
    sink = _node_sink
    if sink is None:
        return
    for key, eks_cluster, nodes, digest in pending:
        try:
            sink(eks_cluster, nodes)
        except KeyError:  # the EKS cluster's API server is not running yet: retried on the next look
            log.debug("no Kubernetes API server for EKS cluster %s yet", eks_cluster)
            continue
        except Exception:
            log.warning("node sink failed for EKS cluster %s", eks_cluster, exc_info=True)
            continue
        with _lock:
            _pushed[key] = digest


def kube_node_sink(fleet: Any) -> Callable[[str, list[dict[str, Any]]], None]:
    """A node sink for ``sandbox.kube.KubeFleet``: upsert the Nodes, delete stale ``hyperpod-*`` ones.

    Raises KeyError while the EKS cluster's API server is not running (the push is retried later).
    """

    def sink(eks_cluster: str, nodes: list[dict[str, Any]]) -> None:
        async def apply(emulator: Any) -> None:
            from kmock._internal import references

            wanted = {node["metadata"]["name"] for node in nodes}
            for node in nodes:
                await emulator.put_object("v1/nodes", node)
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


def sync_nodes() -> None:
    """Settle every cluster of every backend, push changed Node lists and announce status changes
    (for a periodic caller)."""
    from moto.sagemaker.models import sagemaker_backends

    pending, changes = [], []
    with _lock:
        for account in list(sagemaker_backends.keys()):
            for region in list(sagemaker_backends[account].keys()):
                backend = sagemaker_backends[account][region]
                eks = []
                for cluster in list(backend.clusters.values()):
                    if isinstance(cluster, HyperPodCluster):
                        _settle(backend, cluster)
                        if cluster.eks_cluster_name:
                            eks.append(cluster.eks_cluster_name)
                pending += _pending_pushes(backend, eks)
                changes += _status_changes(backend)
    _push(pending)
    _announce_changes(changes)


# ============================================================================ state-change events

STATE_CHANGE = "SageMaker HyperPod Cluster State Change"
_state_sink: Callable[[str, str, dict[str, Any]], None] | None = None
_announced: dict[tuple[str, str, str], str] = {}  # (account, region, cluster ARN) -> last status announced


def set_state_sink(fn: Callable[[str, str, dict[str, Any]], None] | None) -> None:
    """Call ``fn(account, region, detail)`` for every cluster status change ``sync_nodes`` sees."""
    global _state_sink
    with _lock:
        _state_sink = fn
        _announced.clear()


def _status_changes(backend: SageMakerModelBackend) -> list[tuple[str, str, dict[str, Any]]]:
    """The clusters whose status moved since the last announcement (call under lock)."""
    if _state_sink is None:
        return []
    out = []
    for cluster in backend.clusters.values():
        if not isinstance(cluster, HyperPodCluster):
            continue
        status, key = cluster.status, (backend.account_id, backend.region_name, cluster.arn)
        if _announced.get(key) == status:
            continue
        _announced[key] = status
        detail = {
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.cluster_name,
            "ClusterStatus": status,
            "CreationTime": cluster.creation_time.isoformat(),
            "NodeRecovery": cluster.node_recovery,
        }
        if status == "Failed" and cluster.failure_message:
            detail["FailureMessage"] = cluster.failure_message
        out.append((backend.account_id, backend.region_name, detail))
    return out


def _announce_changes(changes: list[tuple[str, str, dict[str, Any]]]) -> None:
    sink = _state_sink
    for account, region, detail in changes if sink else ():
        try:
            sink(account, region, detail)
        except Exception:
            log.warning("state sink failed for %s", detail["ClusterName"], exc_info=True)


def eventbridge_state_sink(account: str, region: str, detail: dict[str, Any]) -> None:
    """Announce on EventBridge's default bus, as SageMaker does."""
    from sandbox.aws import eventbridge

    eventbridge.put_event(account, region, "aws.sagemaker", STATE_CHANGE, detail, [detail["ClusterArn"]])


def ticker(interval: float = 0.1) -> Any:
    """``sync_nodes`` every ``interval`` real seconds: HyperPod's clock moves without callers."""
    from sandbox.periodic import Periodic

    return Periodic("sandbox-hyperpod", interval, sync_nodes)


# ============================================================================ validation


def _require_name(value: Any, where: str) -> None:
    if not isinstance(value, str) or not _NAME.match(value):
        raise _invalid(
            f"1 validation error detected: Value '{value}' at '{where}' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
        )


def _role_allows_bucket(account: str, partition: str, role_arn: str, bucket: str) -> bool:
    """Whether the role, as stored in moto's IAM, has a policy allowing s3:GetObject on ``bucket``."""
    match = _ROLE_ARN.match(role_arn or "")
    if not match:
        return False
    try:
        from moto.iam.models import iam_backends

        role = iam_backends[account][partition].get_role(match["name"].split("/")[-1])
    except Exception:  # no such role in the emulated IAM
        return False
    documents = list(role.policies.values())
    for policy in role.managed_policies.values():
        versions = [v for v in getattr(policy, "versions", []) if getattr(v, "is_default", False)]
        documents += [v.document for v in versions] or [getattr(policy, "document", "") or ""]
    target = f"arn:{partition}:s3:::{bucket}/object"
    for document in documents:
        try:
            statements = json.loads(document).get("Statement", [])
        except (TypeError, ValueError):
            continue
        for statement in statements if isinstance(statements, list) else [statements]:
            if statement.get("Effect") != "Allow":
                continue
            actions = statement.get("Action", [])
            resources = statement.get("Resource", [])
            actions = [actions] if isinstance(actions, str) else actions
            resources = [resources] if isinstance(resources, str) else resources
            if any(fnmatch.fnmatchcase("s3:GetObject", a) for a in actions) and any(
                fnmatch.fnmatchcase(target, r) for r in resources
            ):
                return True
    return False


def _validate_group(backend: SageMakerModelBackend, spec: dict[str, Any], index: int, *, slurm: bool) -> None:
    where = f"instanceGroups.{index}.member"
    _require_name(spec.get("InstanceGroupName"), f"{where}.instanceGroupName")
    name = spec["InstanceGroupName"]
    instance_type = spec.get("InstanceType")
    if instance_type is None and not spec.get("InstanceRequirements"):
        raise _invalid(f"Either InstanceType or InstanceRequirements must be specified for instance group {name}.")
    requested = [instance_type] if instance_type else spec["InstanceRequirements"].get("InstanceTypes", [])
    for candidate in requested:
        if candidate not in instance_types():
            raise _invalid(
                f"1 validation error detected: Value '{candidate}' at '{where}.instanceType' failed to satisfy "
                f"constraint: Member must satisfy enum value set: [{', '.join(instance_types())}]"
            )
    count = spec.get("InstanceCount")
    if not isinstance(count, int) or not 0 <= count <= 6758:
        raise _invalid(
            f"1 validation error detected: Value '{count}' at '{where}.instanceCount' failed to satisfy "
            "constraint: Member must have value less than or equal to 6758"
        )
    threads = spec.get("ThreadsPerCore")
    if threads is not None and threads not in (1, 2):
        raise _invalid(
            f"1 validation error detected: Value '{threads}' at '{where}.threadsPerCore' failed to satisfy "
            "constraint: Member must have value less than or equal to 2"
        )
    role = spec.get("ExecutionRole")
    if not _ROLE_ARN.match(role or ""):
        raise _invalid(
            f"1 validation error detected: Value '{role}' at '{where}.executionRole' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: "
            "arn:aws[a-z\\-]*:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+"
        )
    checks = spec.get("OnStartDeepHealthChecks") or []
    if len(set(checks)) != len(checks):
        raise _invalid(f"OnStartDeepHealthChecks of instance group {name} contains duplicates.")
    # Deep health checks exercise accelerators (DCGM, NVLink, Neuron) and EFA: "Instance type compatibility:
    # GPU / Trainium" (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-resiliency-deep-health-checks.html).
    unsupported = [t for t in requested if not (shape_of(t).gpus or shape_of(t).neuron_devices)]
    if checks and unsupported:
        raise _invalid(
            f"Deep health checks {', '.join(checks)} are not supported for instance type {unsupported[0]} of "
            f"instance group {name}. Deep health checks run only on GPU and Trainium instance types; remove "
            "OnStartDeepHealthChecks from this group."
        )
    lifecycle = spec.get("LifeCycleConfig")
    if lifecycle is None:
        if slurm:
            raise _invalid(f"LifeCycleConfig is required for instance group {name} of a Slurm-orchestrated cluster.")
        return
    uri = lifecycle.get("SourceS3Uri")
    if not uri:
        raise _invalid(f"LifeCycleConfig.SourceS3Uri is required for instance group {name}.")
    if slurm and not lifecycle.get("OnCreate"):
        raise _invalid(f"LifeCycleConfig.OnCreate is required for instance group {name}.")
    match = _S3_URI.match(uri)
    if not match:
        raise _invalid(
            f"Validation Error: SourceS3Uri {uri} is not a valid S3 URI. Use s3://<bucket>/<prefix>, "
            "for example s3://sagemaker-lifecycle-scripts/hyperpod/."
        )
    bucket = match["bucket"]
    if not bucket.startswith("sagemaker-") and not _role_allows_bucket(
        backend.account_id, backend.partition, role, bucket
    ):
        raise _invalid(
            f"Validation Error: SourceS3Uri {uri} does not start with 's3://sagemaker-'. The managed policy "
            "AmazonSageMakerClusterInstanceRolePolicy only allows buckets whose names start with 'sagemaker-'; "
            f"use such a bucket or allow s3:GetObject on arn:aws:s3:::{bucket}/* in execution role {role}."
        )


def _validate_groups(backend: SageMakerModelBackend, specs: list[dict[str, Any]], *, slurm: bool) -> None:
    seen: set[str] = set()
    for index, spec in enumerate(specs, start=1):
        _validate_group(backend, spec, index, slurm=slurm)
        if spec["InstanceGroupName"] in seen:
            raise _invalid(
                f"Instance group names must be unique within a cluster; {spec['InstanceGroupName']} appears twice."
            )
        seen.add(spec["InstanceGroupName"])


def _validate_orchestrator(
    backend: SageMakerModelBackend, orchestrator: dict[str, Any] | None, vpc_config: dict[str, Any] | None = None
) -> None:
    eks = (orchestrator or {}).get("Eks")
    if not eks:
        return
    arn = eks.get("ClusterArn")
    match = _EKS_ARN.match(arn or "")
    if not match:
        raise _invalid(
            f"1 validation error detected: Value '{arn}' at 'orchestrator.eks.clusterArn' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: "
            "arn:aws[a-z\\-]*:eks:[a-z0-9\\-]*:[0-9]{12}:cluster\\/[0-9A-Za-z][A-Za-z0-9\\-_]{0,99}"
        )
    try:
        from moto.eks.models import eks_backends

        eks_cluster = eks_backends[match["account"]][match["region"]].clusters.get(match["name"])
    except Exception:  # the EKS emulation is unavailable: accept the ARN as given
        return
    if eks_cluster is None:
        raise _invalid(
            f"The EKS cluster {arn} was not found. Create it first, or check the account and Region in the ARN."
        )
    version = getattr(eks_cluster, "version", None)
    if version and version not in HYPERPOD_KUBERNETES_VERSIONS:
        raise _invalid(
            f"The EKS cluster {match['name']} runs Kubernetes {version}. SageMaker HyperPod supports Kubernetes "
            f"versions {', '.join(HYPERPOD_KUBERNETES_VERSIONS)}."
        )
    mode = getattr(eks_cluster, "authentication_mode", None)
    if mode not in (None, "API", "API_AND_CONFIG_MAP"):
        raise _invalid(
            f"The EKS cluster {match['name']} uses authentication mode {mode}. SageMaker HyperPod requires "
            "API or API_AND_CONFIG_MAP; change it with eks update-cluster-config --access-config."
        )
    status = getattr(eks_cluster, "status", "ACTIVE")
    if status != "ACTIVE":
        # HyperPod attaches to a running control plane ("you need a running Amazon EKS cluster",
        # https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html).
        raise _invalid(
            f"The EKS cluster {match['name']} is in {status} status. Wait until it is ACTIVE, then create the "
            "SageMaker HyperPod cluster."
        )
    _validate_vpc(match["account"], match["region"], eks_cluster, vpc_config)


def _validate_vpc(account: str, region: str, eks_cluster: Any, vpc_config: dict[str, Any] | None) -> None:
    """HyperPod's subnets and security groups must be in the EKS cluster's VPC: its nodes' interfaces sit
    in that VPC to reach the control plane (HyperPod EKS prerequisites, networking). Resources the
    emulated EC2 does not hold are not judged, as CreateCluster in EKS tolerates them here."""
    eks_vpc = (getattr(eks_cluster, "resources_vpc_config", None) or {}).get("vpcId")
    if not vpc_config or not eks_vpc:
        return
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[account][region]
    except Exception:
        return
    for subnet_id in vpc_config.get("Subnets") or []:
        try:
            subnet = ec2.get_subnet(subnet_id)
        except Exception:
            continue
        if subnet.vpc_id != eks_vpc:
            raise _invalid(
                f"Subnet {subnet_id} is in {subnet.vpc_id}, but the EKS cluster {eks_cluster.name} is in {eks_vpc}. "
                "The subnets of a SageMaker HyperPod cluster must be in the VPC of its EKS cluster."
            )
    for group_id in vpc_config.get("SecurityGroupIds") or []:
        group = ec2.get_security_group_from_id(group_id)
        if group is not None and group.vpc_id != eks_vpc:
            raise _invalid(
                f"Security group {group_id} is in {group.vpc_id}, but the EKS cluster {eks_cluster.name} is in "
                f"{eks_vpc}. The security groups of a SageMaker HyperPod cluster must be in the VPC of its EKS cluster."
            )


# ============================================================================ operations


def _find(backend: SageMakerModelBackend, name_or_arn: str) -> HyperPodCluster:
    """The cluster named ``name_or_arn`` (or with that ARN), settled; ResourceNotFound if none."""
    cluster: Any = None
    if _CLUSTER_ARN.match(name_or_arn or "") or (name_or_arn or "").startswith("arn:"):
        cluster = next((c for c in backend.clusters.values() if getattr(c, "arn", None) == name_or_arn), None)
    else:
        cluster = backend.clusters.get(name_or_arn)
    if not isinstance(cluster, HyperPodCluster) or not _settle(backend, cluster):
        raise ResourceNotFound(message=f"Cluster {name_or_arn} not found.")
    return cluster


def create_cluster(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    name = params.get("ClusterName")
    _require_name(name, "clusterName")
    if name in backend.clusters:
        raise ResourceInUseException(
            message=f"Resource Already Exists: Cluster with name {name} already exists. Choose a different name."
        )
    specs = params.get("InstanceGroups") or []
    if not specs and not params.get("RestrictedInstanceGroups"):
        raise _invalid("At least one instance group must be specified in InstanceGroups.")
    orchestrator = params.get("Orchestrator")
    slurm = not (orchestrator or {}).get("Eks")
    _validate_orchestrator(backend, orchestrator, params.get("VpcConfig"))
    _validate_groups(backend, specs, slurm=slurm)
    # The account's cluster-usage quota binds CreateCluster as it binds UpdateCluster (sandbox.aws.capacity).
    asked: Counter[str] = Counter()
    for spec in specs:
        if spec.get("InstanceType"):
            asked[spec["InstanceType"]] += int(spec.get("InstanceCount") or 0)
    for instance_type, count in sorted(asked.items()):
        used = _targets(backend, lambda g, t=instance_type: g.instance_type == t, ("", ""))
        capacity.check_quota(instance_type, used, count)
    fault = HYPERPOD_FAULTS._take()
    cluster = HyperPodCluster(backend, name, params)
    creation = _durations["cluster_create"]
    for spec in specs:
        group = InstanceGroup(spec, "Creating")
        cluster.groups[group.name] = group
        _add_nodes(cluster, group, group.target, creation, "launch")
    cluster.event("Cluster", f"Cluster {name} creation started.")
    if fault:
        _arm_fault(cluster, fault)
    backend.clusters[name] = cluster
    return cluster


def _arm_fault(cluster: HyperPodCluster, fault: tuple[FaultKind, str | None]) -> None:
    kind, message = fault
    groups = list(cluster.groups.values())
    if not groups:
        return
    creation = _durations["cluster_create"]
    if kind == "deep_health_check":
        group = next((g for g in groups if g.deep_health_checks), groups[0])
        node = next((n for n in cluster.nodes.values() if n.group == group.name), None)
        if node is None:
            return
        checks = group.deep_health_checks or ["InstanceStress"]
        node.deep_health_checks = checks
        node.phases = _launch_phases(
            creation, checks, message or _deep_health_failure(node.instance_id, checks, cluster.node_recovery)
        )
        return
    # Capacity shortages and bootstrap failures bite the accelerated groups first.
    accelerated = [g for g in groups if shape_of(g.instance_type).gpus or shape_of(g.instance_type).neuron_devices]
    group = (accelerated or groups)[0]
    first = next((n for n in cluster.nodes.values() if n.group == group.name), None)
    zone = first.placement["AvailabilityZone"] if first else f"{cluster.region_name}a"
    for node in cluster.nodes.values():
        if node.group == group.name:  # these instances never come up
            node.phases = [_Phase("Pending", math.inf, "")]
    if kind == "capacity":
        others = [z for z, _ in _zones(cluster.region_name) if z != zone][:3]
        text = message or (
            f"We currently do not have sufficient capacity for {group.instance_type} in the requested "
            f"Availability Zone {zone}. Our system will be working on provisioning additional capacity. "
            f"You can currently get {group.instance_type} capacity by not specifying an Availability Zone in "
            f"your request or choosing {', '.join(others)}."
        )
        cluster.failure = (0.3 * creation, text, group.name)
    else:
        instance = first.instance_id if first else _instance_id()
        on_create = (group.spec.get("LifeCycleConfig") or {}).get("OnCreate") or "on_create.sh"
        text = message or (
            f"Lifecycle script did not run successfully. Check the CloudWatch logs of instance group {group.name} "
            f"in log group /aws/sagemaker/Clusters/{cluster.cluster_name}/{cluster.cluster_id}, log stream "
            f"LifecycleConfig/{group.name}/{instance}: {on_create} exited with a non-zero status."
        )
        cluster.failure = (0.6 * creation, text, group.name)


def _require_in_service(cluster: HyperPodCluster, operation: str) -> None:
    status = cluster_status(cluster)
    if status != "InService":
        # moto's ConflictException takes the message positionally only.
        raise ConflictException(
            f"Cannot {operation} cluster {cluster.cluster_name} while it is in {status} status; "
            "wait until it is InService."
        )


def _capacity_of(spec: dict[str, Any]) -> str:
    if spec.get("TrainingPlanArn"):
        return f"TrainingPlan {spec['TrainingPlanArn']}"
    return "Spot" if "Spot" in (spec.get("CapacityRequirements") or {}) else "OnDemand"


# What an instance group keeps for its life: its instance type, where its capacity comes from (Spot,
# On-Demand or a training plan's reservation), its network interfaces (EFA or EFA-only) and its subnets.
# Each shapes the instances HyperPod has already launched, so UpdateCluster refuses to change them in
# place and the way is a new group ("To add a new instance group, specify a new name",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-cli-command-update-cluster.html).
_FIXED_FIELDS: tuple[tuple[str, str, Callable[[dict[str, Any]], Any]], ...] = (
    ("InstanceType", "instance type", lambda s: s.get("InstanceType")),
    ("CapacityRequirements", "capacity type", _capacity_of),
    (
        "NetworkInterface",
        "network interface type",
        lambda s: (s.get("NetworkInterface") or {}).get("InterfaceType") or "efa",
    ),
    ("OverrideVpcConfig", "subnets", lambda s: sorted((s.get("OverrideVpcConfig") or {}).get("Subnets") or [])),
)


def _hyperpod_clusters(backend: SageMakerModelBackend) -> list[HyperPodCluster]:
    return [c for c in backend.clusters.values() if isinstance(c, HyperPodCluster) and c.deleting_since is None]


def _targets(backend: SageMakerModelBackend, match: Callable[[InstanceGroup], bool], skip: tuple[str, str]) -> int:
    """Instances asked for by the groups ``match`` accepts, across the account's clusters, but ``skip``."""
    return sum(
        g.target
        for c in _hyperpod_clusters(backend)
        for g in c.groups.values()
        if g.deleting_since is None and (c.cluster_name, g.name) != skip and match(g)
    )


def _zones_of(cluster: HyperPodCluster, spec: dict[str, Any]) -> set[str]:
    subnets = ((spec.get("OverrideVpcConfig") or cluster.vpc_config) or {}).get("Subnets") or []
    return {p["AvailabilityZone"] for p in _placements(cluster.account_id, cluster.region_name, subnets)}


def _check_capacity(backend: SageMakerModelBackend, cluster: HyperPodCluster, spec: dict[str, Any]) -> None:
    """The account's cluster-usage quota for the type, and the training plan the group names (sandbox.aws.capacity)."""
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


def _add_capacity(cluster: HyperPodCluster, group: InstanceGroup, count: int) -> None:
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
                cluster.event("InstanceGroup", group.failure, level="Error", group=group.name)
            count = granted
    _add_nodes(cluster, group, count, _durations["scale_up"], "scale")


def _check_fixed_fields(existing: InstanceGroup, spec: dict[str, Any]) -> None:
    for member, words, read in _FIXED_FIELDS:
        if member == "InstanceType" and not spec.get("InstanceType"):
            continue
        before, after = read(existing.spec), read(spec)
        if before != after:
            raise _invalid(
                f"The {words} of instance group {existing.name} cannot be changed from {before} to {after}; "
                f"{member} can only be set when the instance group is created. Add a new instance group instead."
            )


def update_cluster(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    cluster = _find(backend, params["ClusterName"])
    _require_in_service(cluster, "update")
    specs = params.get("InstanceGroups") or []
    to_delete = params.get("InstanceGroupsToDelete") or []
    orchestrator = params.get("Orchestrator") or cluster.orchestrator
    _validate_groups(backend, specs, slurm=not (orchestrator or {}).get("Eks"))
    autoscaling.check_request(params, cluster.settings, bool((orchestrator or {}).get("Eks")))
    for name in to_delete:
        if name not in cluster.groups:
            raise _invalid(f"Instance group {name} does not exist in cluster {cluster.cluster_name}.")
        if any(spec["InstanceGroupName"] == name for spec in specs):
            raise _invalid(f"Instance group {name} cannot be both updated and deleted in one request.")
    for spec in specs:
        existing = cluster.groups.get(spec["InstanceGroupName"])
        if existing:
            _check_fixed_fields(existing, spec)
        _check_capacity(backend, cluster, spec)
    for spec in specs:
        existing = cluster.groups.get(spec["InstanceGroupName"])
        if existing is None:
            group = InstanceGroup(spec, "Creating")
            cluster.groups[group.name] = group
            _add_capacity(cluster, group, group.target)
            cluster.event("InstanceGroup", f"Instance group {group.name} creation started.", group=group.name)
            continue
        before = len(_group_nodes(cluster, existing.name))
        existing.spec = copy.deepcopy(spec)
        existing.status_while_settling = "Updating"
        if existing.target > before:
            _add_capacity(cluster, existing, existing.target - before)
        elif existing.target < before:
            # Scale-down removes the newest instances first.
            nodes = sorted(_group_nodes(cluster, existing.name), key=lambda n: n.launch_time, reverse=True)
            for node in nodes[: before - existing.target]:
                del cluster.nodes[node.instance_id]
        cluster.event(
            "InstanceGroup",
            f"Instance group {existing.name} is being updated ({before} -> {existing.target} instances).",
            group=existing.name,
        )
    for name in to_delete:
        cluster.groups[name].deleting_since = sim_now()
        for node in _group_nodes(cluster, name):
            node.phases = [_Phase("ShuttingDown", math.inf, "")]
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
    return cluster


def batch_add_nodes(backend: SageMakerModelBackend, params: dict[str, Any]) -> tuple[HyperPodCluster, dict[str, Any]]:
    """BatchAddClusterNodes: raise each group's target (continuous provisioning only, see hyperpod_autoscaling)."""
    cluster = _find(backend, params["ClusterName"])
    if cluster.settings.get("NodeProvisioningMode") != "Continuous":
        raise _invalid("BatchAddClusterNodes requires a cluster with NodeProvisioningMode Continuous.")
    successful: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for item in params.get("NodesToAdd") or []:
        group = cluster.groups.get(item.get("InstanceGroupName"))
        count = int(item.get("IncrementTargetCountBy") or 0)
        if group is None or group.deleting_since is not None:
            failed.append(
                {
                    "InstanceGroupName": item.get("InstanceGroupName"),
                    "ErrorCode": "InstanceGroupNotFound",
                    "FailedCount": count,
                    "Message": f"Instance group {item.get('InstanceGroupName')} does not exist.",
                }
            )
            continue
        spec = {**group.spec, "InstanceCount": group.target + count}
        _check_capacity(backend, cluster, spec)
        before = set(cluster.nodes)
        group.spec["InstanceCount"] = group.target + count
        group.status_while_settling = "Updating"
        _add_capacity(cluster, group, count)
        for node_id in set(cluster.nodes) - before:
            node = cluster.nodes[node_id]
            successful.append(
                {
                    "NodeLogicalId": node.instance_id,
                    "InstanceGroupName": group.name,
                    "Status": node.state()[0],
                    "AvailabilityZones": [node.placement["AvailabilityZone"]],
                    "InstanceTypes": [node.instance_type],
                }
            )
        cluster.event(
            "InstanceGroup",
            f"Instance group {group.name}: {count} node(s) added by BatchAddClusterNodes.",
            group=group.name,
        )
    return cluster, {"Successful": successful, "Failed": failed}


def _batch_size(policy: dict[str, Any] | None, count: int) -> int:
    size = (policy or {}).get("MaximumBatchSize") or {}
    value = int(size.get("Value") or 0)
    if not value:
        return max(count, 1)
    if size.get("Type") == "CAPACITY_PERCENTAGE":
        return max(1, math.ceil(count * value / 100))
    return max(1, value)


def update_cluster_software(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    cluster = _find(backend, params["ClusterName"])
    _require_in_service(cluster, "update the software of")
    requested = params.get("InstanceGroups") or [{"InstanceGroupName": g} for g in cluster.groups]
    for item in requested:
        if item["InstanceGroupName"] not in cluster.groups:
            raise _invalid(
                f"Instance group {item['InstanceGroupName']} does not exist in cluster {cluster.cluster_name}."
            )
    deployment = params.get("DeploymentConfig") or {}
    per_batch = _durations["software_update"]
    wait = float(deployment.get("WaitIntervalInSeconds") or 0)
    total = 0.0
    for item in requested:
        group = cluster.groups[item["InstanceGroupName"]]
        # Instances that are rebooting, replacing or failed keep their own course.
        nodes = sorted(
            (n for n in _group_nodes(cluster, group.name) if n.state()[0] == "Running"), key=lambda n: n.launch_time
        )
        size = _batch_size(deployment.get("RollingUpdatePolicy"), len(nodes))
        for index, node in enumerate(nodes):
            start = (index // size) * (per_batch + wait)
            node.phases = [
                _Phase("Running", start),
                _Phase("SystemUpdating", start + per_batch, "Updating the HyperPod platform software"),
                _Phase("Running", math.inf),
            ]
            node.kind = "update"
            node.started, node.started_wall, node.announced = sim_now(), _now(), len(node.phases) - 1
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
    cluster = _find(backend, name_or_arn)
    if cluster.deleting_since is None:
        cluster.deleting_since = sim_now()
        for node in cluster.nodes.values():
            node.phases = [_Phase("ShuttingDown", math.inf, "")]
        cluster.event("Cluster", f"Cluster {cluster.cluster_name} deletion started.")
    return cluster


def _node_of(cluster: HyperPodCluster, node_id: str) -> HyperPodNode | None:
    return cluster.nodes.get(node_id)


def batch_node_operation(
    backend: SageMakerModelBackend, name_or_arn: str, node_ids: list[str], operation: str
) -> tuple[HyperPodCluster, list[str], list[dict[str, str]]]:
    """Reboot, replace or delete instances; returns (cluster, successful ids, failures)."""
    cluster = _find(backend, name_or_arn)
    limit = 99 if operation == "delete" else 25
    if len(node_ids) > limit:
        raise _invalid(
            f"1 validation error detected: Value at 'nodeIds' failed to satisfy constraint: "
            f"Member must have length less than or equal to {limit}"
        )
    if operation == "replace" and not cluster.patched_for_replace:
        # AWS: "If you want to invoke this API on an existing cluster, you'll first need to patch the cluster
        # by running the UpdateClusterSoftware API" (API reference, BatchReplaceClusterNodes); the wording
        # of the refusal is ours.
        raise _invalid(
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
            node._restart(
                [_Phase("Pending", _durations["reboot"], "Rebooting instance"), _Phase("Running", math.inf)], "reboot"
            )
            node.failed_at = None
            cluster.event("Instance", f"Instance {node_id} is rebooting.", group=node.group, instance_id=node_id)
        elif operation == "replace":
            _replace_node(cluster, node, "BatchReplaceClusterNodes")
        else:
            del cluster.nodes[node_id]
            group = cluster.groups.get(node.group)
            if group is not None:
                group.spec["InstanceCount"] = max(group.target - 1, 0)
            cluster.event("Instance", f"Instance {node_id} was deleted.", group=node.group, instance_id=node_id)
        ok.append(node_id)
    return cluster, ok, failed


def node_details(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, Any]:
    group = cluster.groups.get(node.group)
    spec = group.spec if group else {}
    status, message = node.state()
    kubernetes = spec.get("KubernetesConfig") or {}
    return _drop_empty(
        {
            "InstanceGroupName": node.group,
            "InstanceId": node.instance_id,
            "InstanceStatus": _drop_empty({"Status": status, "Message": message or None}),
            "InstanceType": node.instance_type,
            "LaunchTime": node.launch_time,
            "LastSoftwareUpdateTime": node.last_software_update,
            "LifeCycleConfig": spec.get("LifeCycleConfig"),
            "OverrideVpcConfig": spec.get("OverrideVpcConfig"),
            "ThreadsPerCore": spec.get("ThreadsPerCore") or 1,
            "InstanceStorageConfigs": spec.get("InstanceStorageConfigs"),
            "PrivatePrimaryIp": node.private_ip,
            "PrivateDnsHostname": node.dns_name,
            "Placement": node.placement,
            "CurrentImageReleaseVersion": spec.get("ImageReleaseVersion"),
            "KubernetesConfig": {
                "CurrentLabels": kubernetes.get("Labels"),
                "DesiredLabels": kubernetes.get("Labels"),
                "CurrentTaints": kubernetes.get("Taints"),
                "DesiredTaints": kubernetes.get("Taints"),
            }
            if kubernetes
            else None,
            "CapacityType": "Spot" if (spec.get("CapacityRequirements") or {}).get("Spot") is not None else "OnDemand",
            "NetworkInterface": spec.get("NetworkInterface"),
        }
    )


def node_summary(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, Any]:
    details = node_details(cluster, node)
    keys = ("InstanceGroupName", "InstanceId", "InstanceType", "LaunchTime", "LastSoftwareUpdateTime", "InstanceStatus")
    return {key: details[key] for key in (*keys, "PrivateDnsHostname", "CurrentImageReleaseVersion") if key in details}


def group_details(cluster: HyperPodCluster, group: InstanceGroup) -> dict[str, Any]:
    spec = group.spec
    nodes = _group_nodes(cluster, group.name)
    running = sum(1 for node in nodes if node.state()[0] in {"Running", "SystemUpdating"})
    out = {key: copy.deepcopy(value) for key, value in spec.items() if key in _detail_members()}
    for key in ("InstanceRequirements", "AutoPatchConfig", "KubernetesConfig"):
        out.pop(key, None)
    out.update(
        {
            "CurrentCount": running,
            "TargetCount": group.target,
            "Status": group_status(cluster, group),
            "ThreadsPerCore": spec.get("ThreadsPerCore") or 1,
        }
    )
    if spec.get("MinInstanceCount") is not None:
        out["MinCount"] = spec["MinInstanceCount"]
    if spec.get("InstanceRequirements"):
        types = spec["InstanceRequirements"].get("InstanceTypes")
        out["InstanceRequirements"] = {"CurrentInstanceTypes": types, "DesiredInstanceTypes": types}
        out["InstanceTypeDetails"] = [
            {"InstanceType": t, "CurrentCount": sum(1 for n in nodes if n.instance_type == t)} for t in types
        ]
    if spec.get("KubernetesConfig"):
        config = spec["KubernetesConfig"]
        out["KubernetesConfig"] = _drop_empty(
            {
                "CurrentLabels": config.get("Labels"),
                "DesiredLabels": config.get("Labels"),
                "CurrentTaints": config.get("Taints"),
                "DesiredTaints": config.get("Taints"),
            }
        )
    if spec.get("AutoPatchConfig"):
        patch = spec["AutoPatchConfig"]
        out["AutoPatchConfig"] = _drop_empty(
            {
                "PatchingStrategy": patch.get("PatchingStrategy"),
                "DeploymentConfig": patch.get("DeploymentConfig"),
                "IdleWaitWindowInSeconds": patch.get("IdleWaitWindowInSeconds"),
                "DrainPolicy": patch.get("DrainPolicy"),
            }
        )
    if spec.get("ImageId"):
        out["CurrentImageId"] = out["DesiredImageId"] = spec["ImageId"]
    if spec.get("ImageReleaseVersion"):
        out["CurrentImageReleaseVersion"] = out["DesiredImageReleaseVersion"] = spec["ImageReleaseVersion"]
    if spec.get("TrainingPlanArn"):
        out["TrainingPlanStatus"] = "Active"
    if group.software:
        out["SoftwareUpdateStatus"] = group.software["status"]
        if group.software.get("config"):
            out["ActiveSoftwareUpdateConfig"] = group.software["config"]
    return out


def describe(cluster: HyperPodCluster) -> dict[str, Any]:
    status = cluster_status(cluster)
    out: dict[str, Any] = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.cluster_name,
        "ClusterStatus": status,
        "CreationTime": cluster.creation_time,
        "InstanceGroups": [group_details(cluster, g) for g in cluster.groups.values()],
        "VpcConfig": cluster.vpc_config,
        "Orchestrator": cluster.orchestrator,
        "NodeRecovery": cluster.node_recovery,
        "TieredStorageConfig": cluster.settings.get("TieredStorageConfig"),
        "NodeProvisioningMode": cluster.settings.get("NodeProvisioningMode"),
        "ClusterRole": cluster.settings.get("ClusterRole"),
        "AutoScaling": autoscaling.autoscaling_view(cluster, sim_now()),
        "RestrictedInstanceGroupsConfig": cluster.restricted.get("RestrictedInstanceGroupsConfig"),
    }
    if cluster.failure_message:
        out["FailureMessage"] = cluster.failure_message
    return _drop_empty(out)


# ============================================================================ response methods


def _params(self: SageMakerResponse) -> dict[str, Any]:
    return dict(self.params or {})


def _respond(self: SageMakerResponse, work: Callable[[SageMakerModelBackend], tuple[Any, list[str]]]) -> ActionResult:
    """Run ``work`` under the lock, then push changed Node lists; ``work`` returns (result, EKS names)."""
    backend = self.sagemaker_backend
    with _lock:
        result, eks_clusters = work(backend)
        pending = _pending_pushes(backend, eks_clusters)
    _push(pending)
    return ActionResult(result)


def _eks_of(*clusters: HyperPodCluster) -> list[str]:
    return [c.eks_cluster_name for c in clusters if c.eks_cluster_name]


def _r_create_cluster(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = create_cluster(backend, _params(self))
        return {"ClusterArn": cluster.arn}, _eks_of(cluster)

    return _respond(self, work)


def _r_describe_cluster(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = _find(backend, self._get_param("ClusterName"))
        return describe(cluster), _eks_of(cluster)

    return _respond(self, work)


def _r_list_clusters(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        clusters = [c for c in list(backend.clusters.values()) if isinstance(c, HyperPodCluster)]
        clusters = [c for c in clusters if _settle(backend, c)]
        name_contains = self._get_param("NameContains")
        after, before = self._get_param("CreationTimeAfter"), self._get_param("CreationTimeBefore")
        plan = self._get_param("TrainingPlanArn")
        if name_contains:
            clusters = [c for c in clusters if name_contains in c.cluster_name]
        if after:
            clusters = [c for c in clusters if c.creation_time.timestamp() > _timestamp(after)]
        if before:
            clusters = [c for c in clusters if c.creation_time.timestamp() < _timestamp(before)]
        if plan:
            clusters = [c for c in clusters if any(g.spec.get("TrainingPlanArn") == plan for g in c.groups.values())]
        reverse = self._get_param("SortOrder") == "Descending"
        if self._get_param("SortBy") == "NAME":
            clusters.sort(key=lambda c: c.cluster_name, reverse=reverse)
        else:
            clusters.sort(key=lambda c: c.creation_time, reverse=reverse)
        page, token = _paginate(clusters, self._get_param("MaxResults"), self._get_param("NextToken"))
        return _drop_empty({"ClusterSummaries": [c.summary() for c in page], "NextToken": token}), _eks_of(*clusters)

    return _respond(self, work)


def _timestamp(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    try:
        return float(value)
    except (TypeError, ValueError):
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def _r_update_cluster(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = update_cluster(backend, _params(self))
        return {"ClusterArn": cluster.arn}, _eks_of(cluster)

    return _respond(self, work)


def _r_batch_add_cluster_nodes(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster, result = batch_add_nodes(backend, _params(self))
        return result, _eks_of(cluster)

    return _respond(self, work)


def _r_update_cluster_software(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = update_cluster_software(backend, _params(self))
        return {"ClusterArn": cluster.arn}, _eks_of(cluster)

    return _respond(self, work)


def _r_delete_cluster(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = delete_cluster(backend, self._get_param("ClusterName"))
        return {"ClusterArn": cluster.arn}, _eks_of(cluster)

    return _respond(self, work)


def _r_list_cluster_nodes(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = _find(backend, self._get_param("ClusterName"))
        nodes = list(cluster.nodes.values())
        contains = self._get_param("InstanceGroupNameContains")
        after, before = self._get_param("CreationTimeAfter"), self._get_param("CreationTimeBefore")
        if contains:
            nodes = [n for n in nodes if contains in n.group]
        if after:
            nodes = [n for n in nodes if n.launch_time.timestamp() > _timestamp(after)]
        if before:
            nodes = [n for n in nodes if n.launch_time.timestamp() < _timestamp(before)]
        reverse = self._get_param("SortOrder") == "Descending"
        if self._get_param("SortBy") == "NAME":
            nodes.sort(key=lambda n: (n.group, n.instance_id), reverse=reverse)
        else:
            nodes.sort(key=lambda n: n.launch_time, reverse=reverse)
        page, token = _paginate(nodes, self._get_param("MaxResults"), self._get_param("NextToken"))
        result = {"ClusterNodeSummaries": [node_summary(cluster, n) for n in page], "NextToken": token}
        return _drop_empty(result), _eks_of(cluster)

    return _respond(self, work)


def _r_describe_cluster_node(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = _find(backend, self._get_param("ClusterName"))
        node_id = self._get_param("NodeId")
        if not node_id:
            raise _invalid("NodeId is required (this sandbox does not track NodeLogicalId).")
        node = cluster.nodes.get(node_id)
        if node is None:
            raise ResourceNotFound(message=f"Node {node_id} not found in cluster {cluster.cluster_name}.")
        return {"NodeDetails": node_details(cluster, node)}, _eks_of(cluster)

    return _respond(self, work)


def _batch(operation: str) -> Callable[[SageMakerResponse], ActionResult]:
    def respond(self: SageMakerResponse) -> ActionResult:
        def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
            node_ids = list(self._get_param("NodeIds") or [])
            logical = list(self._get_param("NodeLogicalIds") or [])
            if not node_ids and not logical:
                raise _invalid("Specify NodeIds or NodeLogicalIds.")
            cluster, ok, failed = batch_node_operation(backend, self._get_param("ClusterName"), node_ids, operation)
            result: dict[str, Any] = {"Successful": ok, "Failed": failed}
            if logical:  # logical ids are not tracked: every one is reported as unknown
                code_field = "Code" if operation == "delete" else "ErrorCode"
                code = "NodeIdNotFound" if operation == "delete" else "InstanceIdNotFound"
                result["SuccessfulNodeLogicalIds"] = []
                result["FailedNodeLogicalIds"] = [
                    {"NodeLogicalId": lid, code_field: code, "Message": f"Node logical id {lid} not found."}
                    for lid in logical
                ]
            return result, _eks_of(cluster)

        return _respond(self, work)

    respond.__name__ = f"batch_{operation}_cluster_nodes"
    return respond


def _r_list_cluster_events(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = _find(backend, self._get_param("ClusterName"))
        events = list(cluster.events)
        group, node_id = self._get_param("InstanceGroupName"), self._get_param("NodeId")
        resource_type = self._get_param("ResourceType")
        after, before = self._get_param("EventTimeAfter"), self._get_param("EventTimeBefore")
        if group:
            events = [e for e in events if e.group == group]
        if node_id:
            events = [e for e in events if e.instance_id == node_id]
        if resource_type:
            events = [e for e in events if e.resource_type == resource_type]
        if after:
            events = [e for e in events if e.time.timestamp() > _timestamp(after)]
        if before:
            events = [e for e in events if e.time.timestamp() < _timestamp(before)]
        events.sort(key=lambda e: e.time, reverse=self._get_param("SortOrder") != "Ascending")
        page, token = _paginate(events, self._get_param("MaxResults"), self._get_param("NextToken"))
        result = {"Events": [_event_summary(cluster, e) for e in page], "NextToken": token}
        return _drop_empty(result), _eks_of(cluster)

    return _respond(self, work)


def _event_summary(cluster: HyperPodCluster, event: _Event) -> dict[str, Any]:
    return _drop_empty(
        {
            "EventId": event.event_id,
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.cluster_name,
            "InstanceGroupName": event.group,
            "InstanceId": event.instance_id,
            "ResourceType": event.resource_type,
            "EventTime": event.time,
            "Description": event.description,
            "EventLevel": event.level,
        }
    )


def _r_describe_cluster_event(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = _find(backend, self._get_param("ClusterName"))
        event_id = self._get_param("EventId")
        event = next((e for e in cluster.events if e.event_id == event_id), None)
        if event is None:
            raise ResourceNotFound(message=f"Event {event_id} not found in cluster {cluster.cluster_name}.")
        return {"EventDetails": _event_summary(cluster, event)}, _eks_of(cluster)

    return _respond(self, work)


_RESPONSE_METHODS: dict[str, Callable[[SageMakerResponse], ActionResult]] = {
    "create_cluster": _r_create_cluster,
    "describe_cluster": _r_describe_cluster,
    "list_clusters": _r_list_clusters,
    "update_cluster": _r_update_cluster,
    "update_cluster_software": _r_update_cluster_software,
    "batch_add_cluster_nodes": _r_batch_add_cluster_nodes,
    "delete_cluster": _r_delete_cluster,
    "list_cluster_nodes": _r_list_cluster_nodes,
    "describe_cluster_node": _r_describe_cluster_node,
    "batch_reboot_cluster_nodes": _batch("reboot"),
    "batch_replace_cluster_nodes": _batch("replace"),
    "batch_delete_cluster_nodes": _batch("delete"),
    "list_cluster_events": _r_list_cluster_events,
    "describe_cluster_event": _r_describe_cluster_event,
}


def _plan_in_use(backend: SageMakerModelBackend, arn: str) -> int:
    """Instances of the account's HyperPod clusters running on training plan ``arn``."""
    with _lock:
        return sum(
            1
            for c in _hyperpod_clusters(backend)
            if _settle(backend, c)
            for n in c.nodes.values()
            if (c.groups.get(n.group) and c.groups[n.group].spec.get("TrainingPlanArn") == arn)
        )


_installed = False
_original_resource_from_arn = SageMakerModelBackend._get_resource_from_arn


def _get_resource_from_arn(self: SageMakerModelBackend, arn: str) -> Any:
    # Cluster ARNs end in the cluster id, not the name moto keys its clusters by.
    if ":cluster/" in arn:
        for cluster in self.clusters.values():
            if getattr(cluster, "arn", None) == arn:
                return cluster
        # SageMaker answers ListTags/AddTags on a resource that is gone with a ValidationException
        # (aws/amazon-sagemaker-feedback#108); moto's lookup returns None and then fails on it.
        raise _invalid(f"Resource {arn} does not exist.")
    if ":mlflow-tracking-server/" in arn:  # moto has no tracking servers: sandbox.aws.mlflow keeps them
        from sandbox.aws import mlflow

        server = mlflow.server_by_arn(arn, deleting=True)
        if server is None or server.arn.split(":")[4] != self.account_id:
            raise _invalid(f"Resource {arn} does not exist.")
        return server
    return _original_resource_from_arn(self, arn)


def install() -> None:
    """Apply the HyperPod extensions (idempotent). SageMaker is JSON/X-Amz-Target: no URL registration."""
    global _installed
    with _lock:
        if _installed:
            return
        for name, method in _RESPONSE_METHODS.items():
            setattr(SageMakerResponse, name, method)
        capacity.install(_plan_in_use, lambda response, params: [z for z, _ in _zones(response.region)])
        SageMakerModelBackend._get_resource_from_arn = _get_resource_from_arn  # type: ignore[method-assign]
        from sandbox.aws import hyperpod_health, hyperpod_operations, mlflow, node_faults  # beyond these: own modules

        hyperpod_health.install()
        mlflow.install()  # managed MLflow tracking servers
        node_faults.install()
        hyperpod_operations.install()  # after hyperpod_health: records its deep health checks
        _installed = True


__all__ = [
    "DEFAULT_DURATIONS",
    "HYPERPOD_FAULTS",
    "STATE_CHANGE",
    "HyperPodFaults",
    "describe_durations",
    "desired_nodes",
    "eventbridge_state_sink",
    "install",
    "instance_types",
    "kube_node_sink",
    "node_object",
    "reset_durations",
    "set_cluster_creation_seconds",
    "set_durations",
    "set_node_sink",
    "set_state_sink",
    "sim_now",
    "sync_nodes",
    "ticker",
]
