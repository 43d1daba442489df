"""Instance groups of a HyperPod cluster: listed with their zones, subnets and Karpenter's share, added
(placed in a zone that offers the type, within the account's quota), changed by explicit diff, deleted.
HyperPod takes one update at a time, so every change needs an InService cluster. Every use case takes its
ports; ``real()`` builds the deployed ones and unit tests pass in-memory fakes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupAcceptedView,
    InstanceGroupChangeInput,
    InstanceGroupListView,
    UpdateInstanceGroupRequest,
)
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import mig
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.clusters.instance_types import to_ec2
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, next_step
from launchpod.domain.instance_groups import autoscaling, changes, placement, preflight, specs, workflow
from launchpod.domain.instance_groups.views import group_view
from launchpod.domain.jobs.manifests import GROUP_LABEL
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.autoscaling import karpenter_objects
from launchpod.usecases.ports import Ec2Offerings, HyperPods, InstanceFacts, KubeLister, KubeReader, Quotas


@dataclass(frozen=True)
class InstanceGroupPorts:
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    sagemaker: HyperPods
    ec2: Ec2Offerings
    quotas: Quotas
    read: KubeReader
    instances: InstanceFacts
    prefix: str = "launchpod"  # the roles Launchpod creates, the only ones it may pass (specs.check_passable)
    kube: KubeLister | None = None  # nodes and pods: a MIG change waits for no pod (mig.refuse_while_in_use)


def real() -> InstanceGroupPorts:
    """The deployed adapters (runtime.wiring and the Kubernetes reader)."""
    return InstanceGroupPorts(
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        sagemaker=wiring.sagemaker(),
        ec2=wiring.ec2(),
        quotas=wiring.service_quotas(),
        read=wiring.kube().read,
        instances=wiring.instance_facts(),
        prefix=settings().resource_prefix,
        kube=wiring.kube_listing().items,
    )


def _cluster(name: str, ports: InstanceGroupPorts) -> HyperPodCluster:
    cluster = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if cluster is None:
        raise hyperpod.no_hyperpod(name)
    return cluster


def _in_service(name: str, cluster: HyperPodCluster) -> None:
    status = cluster.status
    if status != "InService":
        raise Conflict(
            f"The HyperPod cluster {name} is {status}; HyperPod takes one update at a time, so change its instance"
            " groups once it is InService."
        )


def _group(name: str, cluster: HyperPodCluster, group: str) -> InstanceGroupState:
    found = cluster.group(group)
    if found is None:
        have = ", ".join(g.name for g in cluster.instance_groups) or "none"
        raise NotFound(f"{name} has no instance group {group}; it has {have}.")
    return found


def _not_karpenters(name: str, cluster: HyperPodCluster, group: str, doing: str, ports: InstanceGroupPorts) -> None:
    """Karpenter owns a managed group's count, and a group still in its node class must not disappear."""
    if group in autoscaling.managed_groups(karpenter_objects(name, cluster, read=ports.read)[0]):
        raise Conflict(
            f"Karpenter manages instance group {group}, so it cannot {doing}; take it out of autoscaling first"
            " (leave it out of the managed groups, or turn autoscaling off).",
            details=[next_step(f"PUT /api/clusters/{name}/autoscaling")],
        )


def _cluster_subnets(cluster: HyperPodCluster) -> list[str]:
    return list(cluster.subnets)


def _preflight_quota(name: str, instance_type: str, delta: int, group: str, ports: InstanceGroupPorts) -> None:
    quota = ports.quotas.sagemaker_quota(preflight.quota_name(instance_type))
    used = preflight.usage(ports.sagemaker.hyperpod_clusters(), instance_type, skip=(name, group))
    preflight.check_quota(instance_type, quota, used, delta)


def _preflight_flexible_quota(name: str, types: list[str], delta: int, group: str, ports: InstanceGroupPorts) -> None:
    preflight.any_type_with_room(types, lambda t: _preflight_quota(name, t, delta, group, ports))


def _needs_continuous(
    name: str, cluster: HyperPodCluster, request: AddInstanceGroupRequest | UpdateInstanceGroupRequest
) -> None:
    placement.check_continuous(
        request,
        cluster.continuous,
        "body",
        f"{name} was created without it (NodeProvisioningMode is not Continuous); create the cluster with "
        "nodeProvisioningMode Continuous, or give one instanceType and no minInstanceCount.",
    )


def _submit(
    change: InstanceGroupChangeInput,
    who: ops.Principal,
    ports: InstanceGroupPorts,
    current: dict[str, Any] | None = None,
    dedicated: bool = False,
) -> OperationView:
    return ops.submit(ports.operations, ports.workflows, workflow.plan(change, current, dedicated), who)[0]


def _subnets_of(
    cluster: HyperPodCluster, groups: Sequence[InstanceGroupState], ports: InstanceGroupPorts
) -> tuple[dict[str, str], set[str]]:
    """The zone of each subnet the cluster and ``groups`` use, and which of them Launchpod made for one group."""
    ids = sorted(set(_cluster_subnets(cluster)) | {s for g in groups for s in g.override_subnets})
    subnets = ports.ec2.subnets(subnet_ids=ids) if ids else []
    zone_of = {s.id: s.zone for s in subnets}
    dedicated = {s.id for s in subnets if s.tags.get("launchpod:purpose") == workflow.SUBNET_PURPOSE}
    return zone_of, dedicated


def list_instance_groups(name: str, *, ports: InstanceGroupPorts) -> InstanceGroupListView:
    """Each group with its zone (from its subnets), whether its subnet is dedicated, and Karpenter's share."""
    cluster = _cluster(name, ports)
    groups = cluster.instance_groups
    zone_of, dedicated = _subnets_of(cluster, groups, ports)
    klass, pool = karpenter_objects(name, cluster, read=ports.read)
    managed = autoscaling.managed_groups(klass)
    facts = ports.instances.all()
    return InstanceGroupListView(
        cluster=name,
        clusterStatus=cluster.status or "Unknown",
        autoscaling=autoscaling.state_view(cluster, pool),
        items=[
            group_view(
                g,
                _cluster_subnets(cluster),
                zone_of,
                dedicated=dedicated,
                karpenter=g.name in managed,
                efa=facts[g.instance_type].efa if g.instance_type in facts else None,
                gpus=facts[g.instance_type].gpus if g.instance_type in facts else 0,
            )
            for g in groups
        ],
    )


def add_instance_group(
    name: str, request: AddInstanceGroupRequest, who: ops.Principal, *, ports: InstanceGroupPorts
) -> InstanceGroupAcceptedView | NoopView:
    """A new group placed in a zone that offers its type (a training plan's zone when it has one), within
    the account's quota; ``notes`` say what was chosen for the caller. The same add again is NOOP; one that
    differs from the group as it is is a 409 naming the field (changes.add_again)."""
    cluster = _cluster(name, ports)
    existing = cluster.group(request.instanceGroup)
    if existing is not None:
        zone_of, dedicated = _subnets_of(cluster, [existing], ports)
        view = group_view(existing, _cluster_subnets(cluster), zone_of, dedicated=dedicated)
        where = {"availabilityZone": view.availabilityZones[0] if len(view.availabilityZones) == 1 else None}
        changes.add_again(
            request, existing, _cluster_subnets(cluster), {**where, "dedicatedSubnet": view.dedicatedSubnet}
        )
        return NoopView(message=f"Instance group {request.instanceGroup} already is as asked; no changes.")
    _in_service(name, cluster)
    specs.check_passable(name, cluster.instance_groups, ports.prefix)
    subnets = _cluster_subnets(cluster)
    home = ports.ec2.subnets(subnet_ids=subnets[:1])[0].zone if subnets else None
    zone = request.availabilityZone or home
    if zone is None:
        raise InvalidInput(
            "The cluster reports no subnet; give availabilityZone.", field="body.availabilityZone", rule="zone"
        )
    notes: list[str] = []
    warnings: list[str] = []
    if request.capacityType == "trainingPlan" and request.trainingPlanArn:
        placed = preflight.training_plan_placement(
            request, ports.sagemaker.training_plan(request.trainingPlanArn), zone, home
        )
        zone, notes, warnings = placed.zone, placed.notes, placed.warnings
        request = request.model_copy(update={"dedicatedSubnet": placed.dedicated_subnet})
    _needs_continuous(name, cluster, request)
    if request.mig is not None and request.instanceType:
        mig.config_for(request.instanceType, request.mig)  # a layout the type's GPUs take, else 422
    types = request.types
    listed = ports.ec2.offerings([to_ec2(t) for t in types])
    offered = {t: listed.get(to_ec2(t), []) for t in types}
    accs = {t: ports.instances.of(t) for t in types}
    placement.check_placement(request, accs, zone, home, offered)
    _preflight_flexible_quota(name, types, request.instanceCount, request.instanceGroup, ports)
    if request.threadsPerCore is None:
        threads = placement.threads_per_core(accs[types[0]])
        request = request.model_copy(update={"threadsPerCore": threads})
        notes.append(f"threadsPerCore {threads}, the default for {types[0]}.")
    change = InstanceGroupChangeInput(name=name, action="add", group=request.instanceGroup, add=request, zone=zone)
    try:
        operation = _submit(change, who, ports)
    except ops.Planned as planned:  # a dry run says what the 202 would
        planned.warnings += warnings
        raise
    return InstanceGroupAcceptedView(operation=operation, statusUrl=operation.statusUrl, notes=notes, warnings=warnings)


def _mig_as_label(
    name: str, request: UpdateInstanceGroupRequest, details: InstanceGroupState
) -> UpdateInstanceGroupRequest:
    """``mig`` is the group's nvidia.com/mig.config label: merged into the labels sent, or the group's own."""
    if request.mig is None:
        return request
    instance_type = details.instance_type
    if not instance_type:
        raise InvalidInput(
            f"Instance group {details.name} of {name} is a flexible group (instanceTypes); HyperPod "
            "partitions GPUs (MIG) only in a group of one instanceType: add such a group instead.",
            field="body.mig",
            rule="mig_single_type",
        )
    labels = request.labels if request.labels is not None else changes.current_values(details, [])["labels"]
    config = mig.config_for(instance_type, request.mig)
    return request.model_copy(update={"labels": {**labels, mig.CONFIG_LABEL: config}, "mig": None})


def _partitions_free(
    name: str, group: str, details: InstanceGroupState, diff: dict[str, Any], ports: InstanceGroupPorts
) -> None:
    """A new partitioning waits for no pod: refused while pods on the group's nodes use its GPUs."""
    if "labels" not in diff:
        return
    before = changes.current_values(details, [])["labels"].get(mig.CONFIG_LABEL)
    after = diff["labels"].get(mig.CONFIG_LABEL)
    if after == before or ports.kube is None:
        return
    nodes = {
        n["metadata"]["name"]
        for n in ports.kube(name, "Node")
        if (n["metadata"].get("labels") or {}).get(GROUP_LABEL) == group
    }
    on_group = [p for p in ports.kube(name, "Pod") if (p.get("spec") or {}).get("nodeName") in nodes]
    mig.refuse_while_in_use(group, after or mig.DISABLED, on_group)


def update_instance_group(
    name: str, group: str, request: UpdateInstanceGroupRequest, who: ops.Principal, *, ports: InstanceGroupPorts
) -> OperationView | NoopView:
    """Only the fields that differ from HyperPod's group change (NOOP when none do); a count Karpenter
    manages is refused, and a larger count is checked against the quota."""
    cluster = _cluster(name, ports)
    details = _group(name, cluster, group)
    request = _mig_as_label(name, request, details)
    diff = changes.diff(request, details, _cluster_subnets(cluster))
    if not diff:
        return NoopView(message=f"Instance group {group} already is as asked; no changes.")
    _in_service(name, cluster)
    _partitions_free(name, group, details, diff, ports)
    specs.check_passable(name, cluster.instance_groups, ports.prefix)
    _needs_continuous(name, cluster, request)
    if "minInstanceCount" in diff or "instanceCount" in diff:
        target = diff.get("instanceCount", details.target_count)
        low = diff.get("minInstanceCount", details.min_count)
        if low is not None and low > target:
            raise InvalidInput(
                f"minInstanceCount {low} is more than the group's instanceCount {target}; it is at most instanceCount.",
                field="body.minInstanceCount",
                rule="ordered",
            )
    if "instanceCount" in diff:
        _not_karpenters(name, cluster, group, "be scaled by hand", ports)
        types = diff.get("instanceTypes") or changes.current_values(details, [])["instanceTypes"]
        _preflight_flexible_quota(
            name,
            types or [details.instance_type or ""],
            diff["instanceCount"] - details.target_count,
            group,
            ports,
        )
    change = InstanceGroupChangeInput(name=name, action="update", group=group, changes=diff)
    return _submit(change, who, ports, changes.current_values(details, _cluster_subnets(cluster)))


def delete_instance_group(
    name: str, group: str, confirm: str, who: ops.Principal, *, ports: InstanceGroupPorts
) -> OperationView:
    """The group and its nodes, once its name is typed as confirm and Karpenter no longer manages it."""
    if confirm != group:
        raise InvalidInput(
            f"Type the group's name, {group}, as confirm to delete it; its nodes are terminated.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    cluster = _cluster(name, ports)
    details = _group(name, cluster, group)
    _in_service(name, cluster)
    _not_karpenters(name, cluster, group, "be deleted", ports)
    specs.check_passable(name, cluster.instance_groups, ports.prefix, deleted=group)
    _, dedicated = _subnets_of(cluster, [details], ports)
    own = set(details.override_subnets) & dedicated
    change = InstanceGroupChangeInput(name=name, action="delete", group=group)
    return _submit(change, who, ports, changes.current_values(details, _cluster_subnets(cluster)), bool(own))
