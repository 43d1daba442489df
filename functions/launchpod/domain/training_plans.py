"""Training plans, pure: the records the TrainingPlans port answers (a plan, an offering, an extension
offering, an extension, and the search that finds offerings), SageMaker's offerings and plans as views, the
price a buyer must name, the plan of a purchase or an extension, and which instance groups use a plan.

adapters.aws.sagemaker builds the records from SearchTrainingPlanOfferings, DescribeTrainingPlan,
ListTrainingPlans, ExtendTrainingPlan and DescribeTrainingPlanExtensionHistory, so the AWS shapes stay in the
adapter (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_TrainingPlanSummary.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_TrainingPlanOffering.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_TrainingPlanExtensionOffering.html).

A purchase is keyed by the plan's name, as CreateTrainingPlan is (it has no ClientToken and answers
ResourceInUse for a second plan of one name,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingPlan.html): the same name
from the same offering is the plan already bought; the name on another reservation is a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from launchpod.contracts.training_plans import (
    ExtensionOfferingView,
    OfferingView,
    PlanUsageView,
    TrainingPlanView,
)
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.plan import Plan, Step

# ---- What the TrainingPlans port answers


@dataclass(frozen=True)
class CapacitySearch:
    """What SearchTrainingPlanOfferings is asked: ``count`` x ``instance_type`` for ``duration_hours``, for
    one kind of resource, within a window when given."""

    instance_type: str
    instance_count: int
    duration_hours: int
    target: str  # TargetResources' one value: hyperpod-cluster, training-job, endpoint or studio-apps
    start_after: datetime | None = None
    end_before: datetime | None = None


@dataclass(frozen=True)
class Reservation:
    """The first reserved capacity of an offering (ReservedCapacityOfferings) or of a plan
    (ReservedCapacitySummaries): a plan reserves one type in one zone."""

    instance_type: str | None = None
    instance_count: int | None = None  # an offering's InstanceCount, a plan's TotalInstanceCount
    zone: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None


@dataclass(frozen=True)
class TrainingPlanOffering:
    offering_id: str
    upfront_fee: str | None = None  # a decimal string, such as "5040.00"
    currency_code: str | None = None
    duration_hours: int | None = None
    target_resources: tuple[str, ...] = ()
    reservation: Reservation = Reservation()


@dataclass(frozen=True)
class TrainingPlan:
    """A plan as DescribeTrainingPlan or ListTrainingPlans answers it."""

    name: str
    arn: str
    status: str | None = None  # Pending, Active, Scheduled, Expired or Failed
    status_message: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None
    duration_hours: int | None = None
    upfront_fee: str | None = None
    currency_code: str | None = None
    target_resources: tuple[str, ...] = ()
    total_instance_count: int | None = None
    in_use_instance_count: int | None = None
    available_instance_count: int | None = None
    reservation: Reservation = Reservation()

    @property
    def available(self) -> int:
        """The instances free for a group: AvailableInstanceCount, else the plan's total."""
        if self.available_instance_count is not None:
            return self.available_instance_count
        return self.total_instance_count or 0


@dataclass(frozen=True)
class ExtensionOffering:
    offering_id: str
    zone: str | None = None
    start_date: datetime | None = None
    end_date: datetime | None = None
    duration_hours: int | None = None
    upfront_fee: str | None = None
    currency_code: str | None = None


@dataclass(frozen=True)
class TrainingPlanExtension:
    """One extension of a plan's history (ExtendTrainingPlan, DescribeTrainingPlanExtensionHistory): the
    offering it was bought from is what makes a second extension by it a no-op."""

    offering_id: str


# ---- Views, prices and plans


def offering_view(offering: TrainingPlanOffering) -> OfferingView:
    reserved = offering.reservation
    return OfferingView(
        offeringId=offering.offering_id,
        upfrontFee=str(offering.upfront_fee or "0"),
        currencyCode=str(offering.currency_code or "USD"),
        instanceType=str(reserved.instance_type or ""),
        instanceCount=int(reserved.instance_count or 0),
        availabilityZone=reserved.zone,
        startTime=reserved.start_time,
        endTime=reserved.end_time,
        durationHours=int(offering.duration_hours or 0),
        targetResources=list(offering.target_resources),
    )


def ranked(offerings: list[OfferingView]) -> list[OfferingView]:
    """Offerings of several Regions as one list: the earliest start first, then the lowest upfront fee (an
    offering with no start last)."""
    latest = datetime.max.replace(tzinfo=UTC)
    return sorted(offerings, key=lambda o: (o.startTime or latest, float(o.upfrontFee or 0)))


def extension_view(offering: ExtensionOffering) -> ExtensionOfferingView:
    return ExtensionOfferingView(
        offeringId=offering.offering_id,
        availabilityZone=offering.zone,
        startDate=offering.start_date,
        endDate=offering.end_date,
        durationHours=int(offering.duration_hours or 0),
        upfrontFee=str(offering.upfront_fee or "0"),
        currencyCode=str(offering.currency_code or "USD"),
    )


def usage(arn: str, clusters: list[HyperPodCluster]) -> list[PlanUsageView]:
    """The instance groups of ``clusters`` that name the plan."""
    return [
        PlanUsageView(cluster=c.name, instanceGroup=g.name, targetCount=g.target_count, currentCount=g.current_count)
        for c in clusters
        for g in c.instance_groups
        if g.training_plan_arn == arn
    ]


def plan_view(plan: TrainingPlan, used_by: list[PlanUsageView], message: str | None = None) -> TrainingPlanView:
    return TrainingPlanView(
        name=plan.name,
        arn=plan.arn,
        status=str(plan.status or "Unknown"),
        statusMessage=plan.status_message,
        instanceType=plan.reservation.instance_type,
        availabilityZone=plan.reservation.zone,
        startTime=plan.start_time,
        endTime=plan.end_time,
        durationHours=plan.duration_hours,
        upfrontFee=plan.upfront_fee,
        currencyCode=plan.currency_code,
        targetResources=list(plan.target_resources),
        totalInstanceCount=int(plan.total_instance_count or 0),
        inUseInstanceCount=int(plan.in_use_instance_count or 0),
        availableInstanceCount=int(plan.available_instance_count or 0),
        usage=used_by,
        message=message,
    )


def _amount(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def check_price(fee: str, currency: str, confirm: str, what: str) -> None:
    """422 unless ``confirm`` is the fee (as a number: 5040 confirms "5040.00")."""
    if _amount(confirm) != _amount(fee):
        raise InvalidInput(
            f"{what} costs {fee} {currency} upfront; send confirmPrice {fee} to buy it (dryRun true shows the price"
            " and buys nothing).",
            field="body.confirmPrice",
            rule="confirm_price",
        )


def same_reservation(plan: TrainingPlan, offering: OfferingView) -> bool:
    """Whether an existing plan is what buying ``offering`` makes (DescribeTrainingPlan does not name the
    offering it came from, so its reservation is compared)."""
    reserved = plan.reservation
    return (
        reserved.instance_type == offering.instanceType
        and int(reserved.instance_count or 0) == offering.instanceCount
        and reserved.zone == offering.availabilityZone
        and plan.start_time == offering.startTime
        and _amount(str(plan.upfront_fee or "")) == _amount(offering.upfrontFee)
    )


def taken(name: str) -> Conflict:
    return Conflict(
        f"A training plan named {name} already exists with another reservation; choose another name.",
        details=[{"field": "body.name", "rule": "training_plan_name_unique", "message": name}],
    )


def _purchase(name: str, action: str, what: str, offering: OfferingView | ExtensionOfferingView) -> Plan:
    """The one step of buying capacity for a plan: what is bought, and its upfront fee, which AWS does not refund."""
    target = f"training plan {name}"
    reason = f"{what}; upfront fee {offering.upfrontFee} {offering.currencyCode}, not refundable"
    return Plan(target, (Step(action, target, reason),))


def buy_plan(name: str, offering: OfferingView) -> Plan:
    when = f"from {offering.startTime:%Y-%m-%d %H:%M} UTC " if offering.startTime else ""
    where = f"{offering.instanceCount} x {offering.instanceType} in {offering.availabilityZone}"
    return _purchase(name, "create", f"buy {where} {when}for {offering.durationHours} hours", offering)


def extend_plan(name: str, offering: ExtensionOfferingView) -> Plan:
    end = f" to {offering.endDate:%Y-%m-%d %H:%M} UTC" if offering.endDate else ""
    return _purchase(name, "update", f"extend by {offering.durationHours} hours{end}", offering)
