"""Checks before a group is added or scaled, on what AWS reports: the training plan (its type, zone and
free instances) and the account's HyperPod cluster-usage quota for the type (Service Quotas)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from launchpod.contracts.instance_groups import AddInstanceGroupRequest
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.quotas import Quota
from launchpod.domain.training_plans import TrainingPlan


@dataclass
class Placement:
    zone: str
    dedicated_subnet: bool
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def quota_name(instance_type: str) -> str:
    """SageMaker's Service Quotas name for the instances of a type across HyperPod clusters."""
    return f"{instance_type} for cluster usage"


def training_plan_placement(
    request: AddInstanceGroupRequest, plan: TrainingPlan | None, asked_zone: str, home_zone: str | None
) -> Placement:
    """Where a training-plan group goes: the plan's zone, whatever was asked (the notes say so), in a
    dedicated subnet when the cluster's subnet is in another zone. 422 when the plan cannot serve it."""
    arn = request.trainingPlanArn
    if plan is None:
        raise InvalidInput(
            f"Training plan {arn} was not found in this account and region; check the ARN "
            "(ListTrainingPlans) or reserve one with CreateTrainingPlan.",
            field="body.trainingPlanArn",
            rule="training_plan_exists",
        )
    if plan.status not in ("Active", "Scheduled"):
        raise InvalidInput(
            f"Training plan {arn} is {plan.status}; only an Active or Scheduled plan gives capacity.",
            field="body.trainingPlanArn",
            rule="training_plan_active",
        )
    reserved = plan.reservation
    if reserved.instance_type and reserved.instance_type != request.instanceType:
        raise InvalidInput(
            f"Training plan {arn} reserves {reserved.instance_type}, not {request.instanceType}; use "
            f"instanceType {reserved.instance_type}.",
            field="body.instanceType",
            rule="training_plan_type",
        )
    available = plan.available
    if request.instanceCount > available:
        raise InvalidInput(
            f"Training plan {arn} has {available} of its {plan.total_instance_count} instances available; "
            f"ask for at most {available}, or extend the plan (ExtendTrainingPlan).",
            field="body.instanceCount",
            rule="training_plan_capacity",
        )
    zone = reserved.zone or asked_zone
    notes = []
    if request.availabilityZone and request.availabilityZone != zone:
        notes.append(f"The training plan's zone {zone} wins over the {request.availabilityZone} asked for.")
    dedicated = request.dedicatedSubnet
    if home_zone and zone != home_zone and not dedicated:
        dedicated = True
        notes.append(f"The cluster's subnet is in {home_zone}, so the group gets a dedicated /20 in {zone}.")
    return Placement(zone=zone, dedicated_subnet=dedicated, notes=notes, warnings=plan_waits(arn, plan))


def check_plan_at_create(
    field: str, arn: str, instance_type: str, count: int, zone: str, plan: TrainingPlan | None
) -> None:
    """A first group on a training plan (CreateCluster): the plan exists, is Active or Scheduled, reserves
    this type in the cluster's zone (the compute subnet's) and has the instances; 422 naming ``field``."""
    problem = None
    if plan is None:
        problem = f"Training plan {arn} was not found in this account and region; list them with list_training_plans."
    elif plan.status not in ("Active", "Scheduled"):
        problem = f"Training plan {arn} is {plan.status}; only an Active or Scheduled plan gives capacity."
    elif plan.reservation.instance_type and plan.reservation.instance_type != instance_type:
        problem = f"Training plan {arn} reserves {plan.reservation.instance_type}, not {instance_type}."
    elif plan.reservation.zone and plan.reservation.zone != zone:
        problem = (
            f"Training plan {arn} reserves capacity in {plan.reservation.zone}, not {zone}; set"
            f" availabilityZone to {plan.reservation.zone}."
        )
    elif count > plan.available:
        problem = f"Training plan {arn} has {plan.available} instances available; ask for at most {plan.available}."
    if problem:
        raise InvalidInput(problem, field=field, rule="training_plan")


def plan_waits(arn: str | None, plan: TrainingPlan) -> list[str]:
    """A group on a plan that is not Active yet is InService with no nodes until the plan starts: HyperPod
    provisions them when the plan turns Active (SageMaker guide, "Training plans utilization for SageMaker
    HyperPod clusters"; CreateTrainingPlan API reference: a plan is usable once Scheduled)."""
    if plan.status == "Active":
        return []
    start = plan.start_time
    when = f"at {start:%Y-%m-%d %H:%M} UTC" if start is not None else "at its start time"
    return [
        f"Training plan {arn} is {plan.status}: the group waits for it, and its instances are provisioned"
        f" when the plan starts {when}."
    ]


def _asks(group: InstanceGroupState, instance_type: str) -> int:
    """What a group asks of the type: its target count, or for a flexible group the instances of the type it
    runs (InstanceTypeDetails), as which of its types the rest lands on is HyperPod's choice."""
    if group.instance_type == instance_type:
        return group.target_count
    return group.type_counts.get(instance_type, 0)


def usage(clusters: list[HyperPodCluster], instance_type: str, skip: tuple[str, str] | None = None) -> int:
    """Instances of the type the account's HyperPod clusters ask for (target counts), but group ``skip``."""
    return sum(
        _asks(g, instance_type)
        for c in clusters
        for g in c.instance_groups
        if g.status != "Deleting" and (c.name, g.name) != skip
    )


def standing(
    quotas: dict[str, Quota], clusters: list[HyperPodCluster], own: str, types: Iterable[str]
) -> dict[str, tuple[Quota, int]]:
    """Per type with an applied quota: the quota and the instances the account's other clusters (all but
    ``own``) ask for. ``quotas`` is keyed by quota name (``quota_name``)."""
    others = [c for c in clusters if c.name != own]
    applied = [t for t in sorted(set(types)) if quota_name(t) in quotas]
    return {t: (quotas[quota_name(t)], usage(others, t, skip=("", ""))) for t in applied}


def check_quota(instance_type: str, quota: Quota | None, used: int, delta: int) -> None:
    """409 naming the quota and by how much to raise it when ``used + delta`` goes past it."""
    if delta <= 0 or quota is None:
        return
    value = int(quota.value)
    if used + delta <= value:
        return
    need = used + delta
    raise Conflict(
        f"The Service Quotas quota '{quota_name(instance_type)}' (sagemaker {quota.code}) is {value}; "
        f"the account's HyperPod clusters ask for {used} and this needs {delta} more. Raise it by {need - value} "
        f"(to {need}) in Service Quotas (RequestServiceQuotaIncrease), or ask for fewer instances."
    )


def any_type_with_room(types: list[str], check: Callable[[str], None]) -> None:
    """A flexible group's instances may land on any of its types: refused (the first type's shortfall) only
    when ``check`` refuses every one of them; a single type's quota must hold the count."""
    refusals: list[Conflict] = []
    for instance_type in types:
        try:
            check(instance_type)
        except Conflict as short:
            refusals.append(short)
            continue
        return
    raise refusals[0]
