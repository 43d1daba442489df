"""HyperPod's sandbox faults: one-shot CreateCluster failures (``HYPERPOD_FAULTS``: capacity,
lifecycle script, deep health check) and clusters that predate BatchReplaceClusterNodes
(``mark_unpatched``)."""

from __future__ import annotations

import math
import threading
from collections import Counter
from typing import Any, Literal, get_args

from sandbox.aws.sagemaker.common import LOCK, new_instance_id, region_zones
from sandbox.aws.sagemaker.durations import durations
from sandbox.aws.sagemaker.instances import shape_of
from sandbox.aws.sagemaker.models import HyperPodCluster, Phase
from sandbox.aws.sagemaker.nodes import deep_health_failure, launch_phases

FaultKind = Literal["capacity", "lifecycle_script", "deep_health_check"]


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


def arm_fault(cluster: HyperPodCluster, fault: tuple[FaultKind, str | None]) -> None:
    kind, message = fault
    groups = list(cluster.groups.values())
    if not groups:
        return
    creation = durations()["cluster_create"]
    if kind == "deep_health_check":
        group = next((g for g in groups if g.deep_health_checks), groups[0])
        node = next((n for n in cluster.nodes.values() if n.group == group.name), None)
        if node is None:
            return
        checks = group.deep_health_checks or ["InstanceStress"]
        node.deep_health_checks = checks
        node.phases = launch_phases(
            creation, checks, message or deep_health_failure(node.instance_id, checks, cluster.node_recovery)
        )
        return
    # Capacity shortages and bootstrap failures bite the accelerated groups first.
    accelerated = [g for g in groups if shape_of(g.instance_type).gpus or shape_of(g.instance_type).neuron_devices]
    group = (accelerated or groups)[0]
    first = next((n for n in cluster.nodes.values() if n.group == group.name), None)
    zone = first.placement["AvailabilityZone"] if first else f"{cluster.region_name}a"
    for node in cluster.nodes.values():
        if node.group == group.name:  # these instances never come up
            node.phases = [Phase("Pending", math.inf, "")]
    if kind == "capacity":
        others = [z for z, _ in region_zones(cluster.region_name) if z != zone][:3]
        text = message or (
            f"We currently do not have sufficient capacity for {group.instance_type} in the requested "
            f"Availability Zone {zone}. Our system will be working on provisioning additional capacity. "
            f"You can currently get {group.instance_type} capacity by not specifying an Availability Zone in "
            f"your request or choosing {', '.join(others)}."
        )
        cluster.failure = (0.3 * creation, text, group.name)
    else:
        instance = first.instance_id if first else new_instance_id()
        on_create = (group.spec.get("LifeCycleConfig") or {}).get("OnCreate") or "on_create.sh"
        text = message or (
            f"Lifecycle script did not run successfully. Check the CloudWatch logs of instance group {group.name} "
            f"in log group /aws/sagemaker/Clusters/{cluster.cluster_name}/{cluster.cluster_id}, log stream "
            f"LifecycleConfig/{group.name}/{instance}: {on_create} exited with a non-zero status."
        )
        cluster.failure = (0.6 * creation, text, group.name)


def mark_unpatched(cluster_name: str) -> None:
    """Make a HyperPod cluster one created before BatchReplaceClusterNodes existed (a sandbox fault);
    ValueError when no such cluster exists."""
    from moto.sagemaker.models import sagemaker_backends

    with LOCK:
        for account in list(sagemaker_backends.keys()):
            for region in list(sagemaker_backends[account].keys()):
                cluster = sagemaker_backends[account][region].clusters.get(cluster_name)
                if isinstance(cluster, HyperPodCluster):
                    cluster.patched_for_replace = False
                    return
    raise ValueError(f"no HyperPod cluster {cluster_name}")
