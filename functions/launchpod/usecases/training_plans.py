"""Training plans: search offerings, buy one against the price the caller names (dry run: the price, nothing
bought; the same name and offering again: the plan already bought), list and describe plans with the
instance groups using them, search a plan's extension offerings and extend it. Writes are immediate
(CreateTrainingPlan and ExtendTrainingPlan complete when they answer), planned first by ``at_once``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.training_plans import (
    BuyTrainingPlanRequest,
    ExtendTrainingPlanRequest,
    ExtensionOfferingListView,
    OfferingListView,
    OfferingQuery,
    OfferingSearch,
    TrainingPlanListView,
    TrainingPlanView,
)
from launchpod.domain import training_plans as tp
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.runtime import wiring
from launchpod.usecases.ports import TrainingPlans
from launchpod.usecases.proposal import at_once


@dataclass(frozen=True)
class TrainingPlanPorts:
    sagemaker: TrainingPlans


def real() -> TrainingPlanPorts:
    """The deployed adapters (runtime.wiring)."""
    return TrainingPlanPorts(sagemaker=wiring.sagemaker())


def _search(query: OfferingQuery) -> tp.CapacitySearch:
    return tp.CapacitySearch(
        instance_type=query.instanceType,
        instance_count=query.instanceCount,
        duration_hours=query.durationHours,
        target=query.target,
        start_after=query.startTimeAfter,
        end_before=query.endTimeBefore,
    )


def _offerings_here(query: OfferingQuery, ports: TrainingPlanPorts) -> list[Any]:
    """The current Region's offerings, as SageMaker orders them, each naming the Region."""
    found = ports.sagemaker.search_training_plan_offerings(_search(query))
    return [tp.offering_view(o).model_copy(update={"region": wiring.region()}) for o in found]


def search_offerings(query: OfferingQuery, *, ports: TrainingPlanPorts) -> OfferingListView:
    """SageMaker's offerings for the query, best match first. With several Regions (``regions``) each is asked
    (side by side: a search waits on SageMaker) and what they offer is ranked as one list (tp.ranked)."""
    regions = query.regions if isinstance(query, OfferingSearch) and query.regions else None
    if regions:

        def search_in(region: str) -> list[Any]:
            with wiring.in_region(region):
                return _offerings_here(query, ports)

        with ContextPool(max_workers=min(8, len(regions)), thread_name_prefix="offerings") as pool:
            items = tp.ranked([o for found in pool.map(search_in, regions) for o in found])
    else:
        items = _offerings_here(query, ports)
    message = None
    if not items:
        where = f" in {', '.join(regions)}" if regions else ""
        message = (
            f"No training plan offers {query.instanceCount} x {query.instanceType} for {query.durationHours} hours"
            f"{where} in that window; try another start, a shorter duration, fewer instances, another instance"
            " type or another Region."
        )
    return OfferingListView(items=items, message=message)


def _usage_of(arn: str, ports: TrainingPlanPorts) -> list[Any]:
    return tp.usage(arn, ports.sagemaker.hyperpod_clusters())


def _plan(name: str, ports: TrainingPlanPorts) -> tp.TrainingPlan:
    plan = ports.sagemaker.training_plan(name)
    if plan is None:
        raise NotFound(f"There is no training plan {name}; list them with GET /api/training-plans.")
    return plan


def _described(name: str, ports: TrainingPlanPorts, message: str | None = None) -> TrainingPlanView:
    plan = _plan(name, ports)
    return tp.plan_view(plan, _usage_of(plan.arn, ports), message)


def list_plans(status: str | None, *, ports: TrainingPlanPorts) -> TrainingPlanListView:
    """Every plan (of ``status`` when given) with the groups that use it (one DescribeCluster per cluster)."""
    clusters = ports.sagemaker.hyperpod_clusters()
    plans = ports.sagemaker.training_plans(status)
    return TrainingPlanListView(items=[tp.plan_view(p, tp.usage(p.arn, clusters)) for p in plans])


def get_plan(name: str, *, ports: TrainingPlanPorts) -> TrainingPlanView:
    return _described(name, ports)


def buy(
    request: BuyTrainingPlanRequest, dry_run: bool, *, ports: TrainingPlanPorts
) -> TrainingPlanView | NoopView | PlanView:
    """Inspect before create: a plan of that name from the same reservation is NOOP, from another a 409. The
    offering is found by repeating its search (SageMaker has no call that reads one offering), its fee must be
    the one confirmed, then CreateTrainingPlan buys it."""
    offerings = [tp.offering_view(o) for o in ports.sagemaker.search_training_plan_offerings(_search(request))]
    offering = next((o for o in offerings if o.offeringId == request.offeringId), None)
    existing = ports.sagemaker.training_plan(request.name)
    if existing is not None:
        if offering is not None and not tp.same_reservation(existing, offering):
            raise tp.taken(request.name)
        return NoopView(message=f"Training plan {request.name} is already bought ({existing.status}).")
    if offering is None:
        raise Conflict(
            f"Offering {request.offeringId} is no longer offered for this search; search again and pick an offering.",
            details=[{"field": "body.offeringId", "rule": "offering_offered", "message": request.offeringId}],
        )
    tp.check_price(offering.upfrontFee, offering.currencyCode, request.confirmPrice, f"Offering {offering.offeringId}")
    plan = tp.buy_plan(request.name, offering)

    def apply() -> TrainingPlanView:
        arn = ports.sagemaker.create_training_plan(request.name, offering.offeringId)
        if arn is None:  # bought by a concurrent call between the inspection and the purchase
            raced = _plan(request.name, ports)
            if not tp.same_reservation(raced, offering):
                raise tp.taken(request.name)
        return _described(request.name, ports, _starts_note(offering.startTime))

    return at_once(plan, dry_run, "", apply)


def _starts_note(start: datetime | None) -> str | None:
    return f"The plan's capacity starts at {start:%Y-%m-%d %H:%M} UTC." if start else None


def extension_offerings(name: str, *, ports: TrainingPlanPorts) -> ExtensionOfferingListView:
    plan = _plan(name, ports)
    if plan.status not in ("Active", "Scheduled"):
        raise Conflict(f"Training plan {name} is {plan.status}; only an Active or Scheduled plan can be extended.")
    raw = ports.sagemaker.training_plan_extension_offerings(plan.arn)
    return ExtensionOfferingListView(plan=name, items=[tp.extension_view(o) for o in raw])


def extend(
    name: str, request: ExtendTrainingPlanRequest, dry_run: bool, *, ports: TrainingPlanPorts
) -> TrainingPlanView | NoopView | PlanView:
    """An offering already in the plan's extension history is NOOP; otherwise it must be among the plan's
    extension offerings now, at the confirmed fee."""
    plan = _plan(name, ports)
    arn = plan.arn
    if any(e.offering_id == request.offeringId for e in ports.sagemaker.training_plan_extensions(arn)):
        return NoopView(message=f"Training plan {name} is already extended by offering {request.offeringId}.")
    if plan.status not in ("Active", "Scheduled"):
        raise Conflict(f"Training plan {name} is {plan.status}; only an Active or Scheduled plan can be extended.")
    offers = [tp.extension_view(o) for o in ports.sagemaker.training_plan_extension_offerings(arn)]
    offering = next((o for o in offers if o.offeringId == request.offeringId), None)
    if offering is None:
        raise Conflict(
            f"Extension offering {request.offeringId} is not offered for {name}; search its extension offerings again.",
            details=[{"field": "body.offeringId", "rule": "offering_offered", "message": request.offeringId}],
        )
    tp.check_price(offering.upfrontFee, offering.currencyCode, request.confirmPrice, f"Extension {offering.offeringId}")

    def apply() -> TrainingPlanView:
        ports.sagemaker.extend_training_plan(offering.offeringId)
        return _described(name, ports)

    return at_once(tp.extend_plan(name, offering), dry_run, "", apply)


def offering_query(**fields: Any) -> OfferingSearch:
    """The search's query from the route's parameters; its cross-field rules (whole days, the window's order)
    refused as 422 naming the query parameter, as the body's would be."""
    try:
        return OfferingSearch(**fields)
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        field = "endTimeBefore" if "endTimeBefore" in message else "durationHours"
        raise InvalidInput(message, field=f"query.{field}", rule="search_window") from exc
