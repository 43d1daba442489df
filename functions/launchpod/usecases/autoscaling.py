"""HyperPod-managed Karpenter for a cluster's instance groups (HyperPod groups only, never plain EC2): its
objects as the autoscaling and instance-group routes read them, and turning it on, changing or off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import Conflict, LaunchpodError
from launchpod.domain.instance_groups import autoscaling, specs
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import HyperPods, KubeReader


@dataclass(frozen=True)
class AutoscalingPorts:
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    sagemaker: HyperPods
    read: KubeReader
    prefix: str = "launchpod"  # the roles Launchpod creates, the only ones it may pass (specs.check_passable)


def real() -> AutoscalingPorts:
    """The deployed adapters (runtime.wiring and the Kubernetes reader)."""
    return AutoscalingPorts(
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        sagemaker=wiring.sagemaker(),
        read=wiring.kube().read,
        prefix=settings().resource_prefix,
    )


def karpenter_objects(
    name: str, cluster: HyperPodCluster, *, read: KubeReader
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The HyperpodNodeClass and NodePool Launchpod applied, when AutoScaling is on (None, None otherwise)."""
    if cluster.autoscaling is None or cluster.autoscaling.mode != "Enable":
        return None, None
    try:
        return read(name, autoscaling.node_class([])), read(name, autoscaling.node_pool(0))
    except LaunchpodError:  # Karpenter's kinds are not installed yet (AutoScaling still Creating)
        return None, None


def set_autoscaling(
    request: AutoscalingInput, who: ops.Principal, *, ports: AutoscalingPorts
) -> OperationView | NoopView:
    """NOOP when HyperPod and Karpenter's objects already are as asked; otherwise the set-autoscaling
    operation, on an InService cluster only (HyperPod takes one update at a time), once check_enable found
    nothing AWS refuses and no node goes that the request did not confirm."""
    name = request.name
    described = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if described is None:
        raise hyperpod.no_hyperpod(name)
    autoscaling.check_groups(request, described)
    klass, pool = karpenter_objects(name, described, read=ports.read)
    if autoscaling.is_noop(request, described, klass, pool):
        state = "on for " + ", ".join(request.instanceGroups) if request.enabled else "off"
        return NoopView(message=f"Autoscaling is already {state}; no changes.")
    autoscaling.check_enable(request, described, autoscaling.managed_groups(klass))
    if request.enabled and (described.autoscaling is None or described.autoscaling.mode != "Enable"):
        specs.check_passable(name, described.instance_groups, ports.prefix)  # UpdateCluster re-passes
    if described.status != "InService":
        raise Conflict(f"The HyperPod cluster {name} is {described.status}; change autoscaling once it is InService.")
    return ops.submit(ports.operations, ports.workflows, autoscaling.plan(request), who)[0]
