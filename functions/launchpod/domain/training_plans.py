"""Training plans, pure: SageMaker's offerings and plans as views, the price a buyer must name, the plan
of a purchase or an extension, and which instance groups use a plan.

A purchase is keyed by the plan's name, as CreateTrainingPlan is (it has no ClientToken and answers
ResourceInUse for a second plan of one name,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingPlan.html): the same name
from the same offering is the plan already bought; the name on another reservation is a conflict.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from launchpod.contracts.training_plans import (
    ExtensionOfferingView,
    OfferingView,
    PlanUsageView,
    TrainingPlanView,
)
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.plan import Plan, Step


def offering_view(raw: dict[str, Any]) -> OfferingView:
    reserved = (raw.get("ReservedCapacityOfferings") or [{}])[0]
    return OfferingView(
        offeringId=raw["TrainingPlanOfferingId"],
        upfrontFee=str(raw.get("UpfrontFee") or "0"),
        currencyCode=str(raw.get("CurrencyCode") or "USD"),
        instanceType=str(reserved.get("InstanceType") or ""),
        instanceCount=int(reserved.get("InstanceCount") or 0),
        availabilityZone=reserved.get("AvailabilityZone"),
        startTime=reserved.get("StartTime"),
        endTime=reserved.get("EndTime"),
        durationHours=int(raw.get("DurationHours") or 0),
        targetResources=list(raw.get("TargetResources") or []),
    )


def ranked(offerings: list[OfferingView]) -> list[OfferingView]:
    """Offerings of several Regions as one list: the earliest start first, then the lowest upfront fee (an
    offering with no start last)."""
    latest = datetime.max.replace(tzinfo=UTC)
    return sorted(offerings, key=lambda o: (o.startTime or latest, float(o.upfrontFee or 0)))


def extension_view(raw: dict[str, Any]) -> ExtensionOfferingView:
    return ExtensionOfferingView(
        offeringId=raw["TrainingPlanExtensionOfferingId"],
        availabilityZone=raw.get("AvailabilityZone"),
        startDate=raw.get("StartDate"),
        endDate=raw.get("EndDate"),
        durationHours=int(raw.get("DurationHours") or 0),
        upfrontFee=str(raw.get("UpfrontFee") or "0"),
        currencyCode=str(raw.get("CurrencyCode") or "USD"),
    )


def usage(arn: str, clusters: list[dict[str, Any]]) -> list[PlanUsageView]:
    """The instance groups of ``clusters`` (DescribeCluster answers) that name the plan."""
    return [
        PlanUsageView(
            cluster=str(c.get("ClusterName")),
            instanceGroup=str(g.get("InstanceGroupName")),
            targetCount=int(g.get("TargetCount") or 0),
            currentCount=int(g.get("CurrentCount") or 0),
        )
        for c in clusters
        for g in c.get("InstanceGroups") or []
        if g.get("TrainingPlanArn") == arn
    ]


def plan_view(raw: dict[str, Any], used_by: list[PlanUsageView], message: str | None = None) -> TrainingPlanView:
    reserved = (raw.get("ReservedCapacitySummaries") or [{}])[0]
    return TrainingPlanView(
        name=raw["TrainingPlanName"],
        arn=raw["TrainingPlanArn"],
        status=str(raw.get("Status") or "Unknown"),
        statusMessage=raw.get("StatusMessage"),
        instanceType=reserved.get("InstanceType"),
        availabilityZone=reserved.get("AvailabilityZone"),
        startTime=raw.get("StartTime"),
        endTime=raw.get("EndTime"),
        durationHours=raw.get("DurationHours"),
        upfrontFee=raw.get("UpfrontFee"),
        currencyCode=raw.get("CurrencyCode"),
        targetResources=list(raw.get("TargetResources") or []),
        totalInstanceCount=int(raw.get("TotalInstanceCount") or 0),
        inUseInstanceCount=int(raw.get("InUseInstanceCount") or 0),
        availableInstanceCount=int(raw.get("AvailableInstanceCount") or 0),
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


def same_reservation(plan: dict[str, Any], offering: OfferingView) -> bool:
    """Whether an existing plan is what buying ``offering`` makes (DescribeTrainingPlan does not name the
    offering it came from, so its reservation is compared)."""
    reserved = (plan.get("ReservedCapacitySummaries") or [{}])[0]
    return (
        reserved.get("InstanceType") == offering.instanceType
        and int(reserved.get("TotalInstanceCount") or 0) == offering.instanceCount
        and reserved.get("AvailabilityZone") == offering.availabilityZone
        and plan.get("StartTime") == offering.startTime
        and _amount(str(plan.get("UpfrontFee") or "")) == _amount(offering.upfrontFee)
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
