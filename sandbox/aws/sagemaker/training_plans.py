"""moto extension: SageMaker training plans (moto 5.2.5 has none of their APIs).

What AWS's API reference says, and what the sandbox does with it:

* ``SearchTrainingPlanOfferings``
  (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_SearchTrainingPlanOfferings.html):
  offerings for ``InstanceType`` x ``InstanceCount`` for ``DurationHours``, starting no earlier than
  ``StartTimeAfter`` and ending by ``EndTimeBefore``; best match first, an empty list when none fits.
  The sandbox offers one per zone (at most two), the first zone cheapest; an offering starts at
  ``StartTimeAfter`` (to the minute) or at the current hour, so a search repeated within the hour answers
  the same offering ids. ``UpfrontFee`` is the sandbox's own illustrative hourly rate per instance (not
  an AWS price) x count x hours, in USD. With ``TrainingPlanArn`` it answers the plan's
  ``TrainingPlanExtensionOfferings`` instead: 1 day and 7 days from the plan's end, in its zone; only an
  Active or Scheduled plan can be extended
  (https://docs.aws.amazon.com/sagemaker/latest/dg/search-extension-offerings-api-cli-sdk.html).
* ``CreateTrainingPlan``
  (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingPlan.html): keyed by
  ``TrainingPlanName``; a second plan of the same name is ``ResourceInUse`` (the API has no ClientToken),
  an unknown offering ``ResourceNotFound``. Payment is immediate in the sandbox, so a plan is never seen
  ``Pending``; it is ``Scheduled`` until its start, ``Active`` until its end, then ``Expired`` (the plan
  status flow of the same page). The plan's clock is the sandbox's (``durations.sim_now``): a plan
  bought at wall time T that starts at S is Scheduled for S - T simulated seconds, so a plan that starts
  in two minutes turns Active after two simulated minutes while showing AWS's wall-clock times.
* ``ExtendTrainingPlan`` / ``DescribeTrainingPlanExtensionHistory``
  (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ExtendTrainingPlan.html): an extension
  offering moves the plan's end (and its reserved capacity's) by its hours and is recorded with
  ``PaymentStatus`` Completed; an offering that is not (or no longer) offered is ``ResourceNotFound``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from moto.sagemaker.exceptions import ResourceInUseException, ResourceNotFound, ValidationError

from sandbox.aws.sagemaker.common import reserved_types
from sandbox.aws.sagemaker.durations import sim_now

_lock = threading.RLock()


# The sandbox's own illustrative USD rates per instance-hour; AWS prices each offering itself.
_RATES = {
    "ml.p4d.24xlarge": Decimal("12.00"),
    "ml.p4de.24xlarge": Decimal("15.00"),
    "ml.p5.48xlarge": Decimal("30.00"),
    "ml.p5.4xlarge": Decimal("4.00"),
    "ml.p5e.48xlarge": Decimal("36.00"),
    "ml.p5en.48xlarge": Decimal("38.00"),
    "ml.p6-b200.48xlarge": Decimal("45.00"),
    "ml.p6-b300.48xlarge": Decimal("60.00"),
    "ml.p6e-gb200.36xlarge": Decimal("70.00"),
    "ml.trn1.32xlarge": Decimal("10.00"),
    "ml.trn2.48xlarge": Decimal("25.00"),
}
_EXTENSION_HOURS = (24, 168)


def fee(instance_type: str, count: int, hours: int, zone_rank: int = 0) -> str:
    rate = _RATES.get(instance_type, Decimal("40.00")) * (Decimal("1.05") ** zone_rank)
    return f"{(rate * count * hours).quantize(Decimal('0.01'))}"


def _store(backend: Any) -> dict[str, dict[str, Any]]:
    if not hasattr(backend, "_launchpod_training_plans"):
        backend._launchpod_training_plans = {}
        backend._launchpod_offerings = {}
    return backend._launchpod_training_plans  # type: ignore[no-any-return]


def _offerings(backend: Any) -> dict[str, dict[str, Any]]:
    _store(backend)
    return backend._launchpod_offerings  # type: ignore[no-any-return]


def _id(prefix: str, *parts: Any) -> str:
    return prefix + hashlib.sha1("|".join(str(p) for p in parts).encode()).hexdigest()[:16]


def _when(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, UTC)
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def search_offerings(backend: Any, params: dict[str, Any], zones: list[str]) -> list[dict[str, Any]]:
    instance_type, count = params.get("InstanceType"), params.get("InstanceCount")
    if not instance_type or not count:
        raise ValidationError("InstanceType and InstanceCount are required to search training plan offerings.")
    if instance_type not in reserved_types():
        raise ValidationError(
            f"Value '{instance_type}' at 'instanceType' failed to satisfy constraint: Member must satisfy enum "
            f"value set: [{', '.join(reserved_types())}]"
        )
    hours = int(params.get("DurationHours") or 24)
    now = datetime.now(UTC)
    after = _when(params.get("StartTimeAfter"))
    if after is not None and after > now:
        # the next whole minute at or after it: an offering never starts before StartTimeAfter
        start = after.replace(second=0, microsecond=0)
        if start < after:
            start += timedelta(minutes=1)
    else:
        start = now.replace(minute=0, second=0, microsecond=0)
    end = start + timedelta(hours=hours)
    before = _when(params.get("EndTimeBefore"))
    if before is not None and end > before:
        return []
    targets = list(params.get("TargetResources") or ["hyperpod-cluster"])
    out = []
    for rank, zone in enumerate(zones[:2]):
        offering_id = _id("tpo-", instance_type, count, hours, zone, start.isoformat(), ",".join(targets))
        offering = {
            "TrainingPlanOfferingId": offering_id,
            "TargetResources": targets,
            "RequestedStartTimeAfter": after or now,
            "DurationHours": hours,
            "DurationMinutes": 0,
            "UpfrontFee": fee(instance_type, int(count), hours, rank),
            "CurrencyCode": "USD",
            "ReservedCapacityOfferings": [
                {
                    "ReservedCapacityType": "Instance",
                    "InstanceType": instance_type,
                    "InstanceCount": int(count),
                    "AvailabilityZone": zone,
                    "DurationHours": hours,
                    "DurationMinutes": 0,
                    "StartTime": start,
                    "EndTime": end,
                }
            ],
        }
        if before is not None:
            offering["RequestedEndTimeBefore"] = before
        with _lock:
            _offerings(backend)[offering_id] = offering
        out.append(offering)
    return out


def status(plan: dict[str, Any]) -> str:
    """Scheduled before its start, Active until its end, then Expired, on the sandbox clock."""
    elapsed = sim_now() - plan["_bought_sim"]
    if elapsed < (plan["StartTime"] - plan["_bought_at"]).total_seconds():
        return "Scheduled"
    if elapsed < (plan["EndTime"] - plan["_bought_at"]).total_seconds():
        return "Active"
    return "Expired"


def create_plan(backend: Any, params: dict[str, Any]) -> str:
    name, offering_id = str(params.get("TrainingPlanName") or ""), params.get("TrainingPlanOfferingId")
    with _lock:
        offering = _offerings(backend).get(offering_id or "")
        if offering is None:
            raise ResourceNotFound(f"Training plan offering {offering_id} was not found; search offerings again.")
        plans = _store(backend)
        if name in plans:
            raise ResourceInUseException(f"A training plan named {name} already exists.")
        reserved = offering["ReservedCapacityOfferings"][0]
        arn = f"arn:aws:sagemaker:{backend.region_name}:{backend.account_id}:training-plan/{name}"
        plans[name] = {
            "TrainingPlanArn": arn,
            "TrainingPlanName": name,
            "DurationHours": offering["DurationHours"],
            "DurationMinutes": 0,
            "StartTime": reserved["StartTime"],
            "EndTime": reserved["EndTime"],
            "UpfrontFee": offering["UpfrontFee"],
            "CurrencyCode": offering["CurrencyCode"],
            "TotalInstanceCount": reserved["InstanceCount"],
            "TargetResources": offering["TargetResources"],
            "_offering": offering_id,
            "_bought_at": datetime.now(UTC),
            "_bought_sim": sim_now(),
            "_extensions": [],
            "_reserved": {
                "ReservedCapacityArn": f"arn:aws:sagemaker:{backend.region_name}:{backend.account_id}:"
                f"reserved-capacity/{_id('', arn, offering_id)}",
                "ReservedCapacityType": "Instance",
                "InstanceType": reserved["InstanceType"],
                "TotalInstanceCount": reserved["InstanceCount"],
                "AvailabilityZone": reserved["AvailabilityZone"],
            },
        }
        return arn


def find(backend: Any, name_or_arn: str) -> dict[str, Any] | None:
    plans = _store(backend)
    return plans.get(name_or_arn) or next((p for p in plans.values() if p["TrainingPlanArn"] == name_or_arn), None)


def view(plan: dict[str, Any], in_use: int) -> dict[str, Any]:
    """DescribeTrainingPlan's answer for ``plan`` now."""
    state = status(plan)
    out = {k: v for k, v in plan.items() if not k.startswith("_")}
    total = plan["TotalInstanceCount"]
    out.update(
        Status=state,
        InUseInstanceCount=in_use,
        AvailableInstanceCount=max(0, total - in_use),
        ReservedCapacitySummaries=[
            {
                **plan["_reserved"],
                "Status": state,
                "DurationHours": plan["DurationHours"],
                "DurationMinutes": 0,
                "StartTime": plan["StartTime"],
                "EndTime": plan["EndTime"],
            }
        ],
    )
    return out


def check_plan(backend: Any, arn: str, instance_type: str, zones: set[str], used_elsewhere: int, target: int) -> None:
    """ValidationException when the plan cannot serve the group: unknown, not Active or Scheduled (usable
    once Scheduled, per CreateTrainingPlan), another type or zone, or too few instances."""
    plan = find(backend, arn) if arn else None
    if plan is None or plan["TrainingPlanArn"] != arn:
        raise ValidationError(f"Training plan {arn} was not found in this account and Region.")
    state = status(plan)
    if state not in ("Active", "Scheduled"):
        raise ValidationError(f"Training plan {arn} is {state}; only an Active or Scheduled plan gives capacity.")
    if "hyperpod-cluster" not in plan["TargetResources"]:
        raise ValidationError(f"Training plan {arn} does not target hyperpod-cluster.")
    reserved = plan["_reserved"]
    if reserved["InstanceType"] != instance_type:
        raise ValidationError(
            f"Training plan {arn} reserves {reserved['InstanceType']}, not {instance_type}; the instance group's "
            "InstanceType must match the training plan's."
        )
    if zones and zones != {reserved["AvailabilityZone"]}:
        raise ValidationError(
            f"Training plan {arn} reserves capacity in {reserved['AvailabilityZone']}, but the instance group's "
            f"subnets are in {', '.join(sorted(zones))}. Use a subnet in {reserved['AvailabilityZone']}."
        )
    if used_elsewhere + target > plan["TotalInstanceCount"]:
        raise ValidationError(
            f"Training plan {arn} has {plan['TotalInstanceCount'] - used_elsewhere} of its "
            f"{plan['TotalInstanceCount']} instances available; the instance group asks for {target}."
        )


def seconds_to_start(backend: Any, arn: str) -> float:
    """Simulated seconds until plan ``arn`` starts (0 when it has started or is unknown): HyperPod provisions
    a group's instances on a plan when the plan turns Active (SageMaker guide, "Training plans utilization
    for SageMaker HyperPod clusters")."""
    plan = find(backend, arn)
    if plan is None or plan["TrainingPlanArn"] != arn:
        return 0.0
    lead = (plan["StartTime"] - plan["_bought_at"]).total_seconds()
    return max(0.0, float(lead - (sim_now() - plan["_bought_sim"])))


def plan_status(backend: Any, arn: str) -> str | None:
    plan = find(backend, arn)
    return status(plan) if plan is not None and plan["TrainingPlanArn"] == arn else None


# ============================================================================ extensions


def extension_offerings(backend: Any, arn: str) -> list[dict[str, Any]]:
    plan = find(backend, arn)
    if plan is None:
        raise ResourceNotFound(f"Training plan {arn} was not found.")
    state = status(plan)
    if state not in ("Active", "Scheduled"):
        raise ValidationError(f"Training plan {arn} is {state}; only an Active or Scheduled plan can be extended.")
    reserved = plan["_reserved"]
    out = []
    for hours in _EXTENSION_HOURS:
        offering_id = _id("tpeo-", arn, plan["EndTime"].isoformat(), hours)
        offering = {
            "TrainingPlanExtensionOfferingId": offering_id,
            "AvailabilityZone": reserved["AvailabilityZone"],
            "StartDate": plan["EndTime"],
            "EndDate": plan["EndTime"] + timedelta(hours=hours),
            "DurationHours": hours,
            "UpfrontFee": fee(reserved["InstanceType"], reserved["TotalInstanceCount"], hours),
            "CurrencyCode": plan["CurrencyCode"],
        }
        with _lock:
            _offerings(backend)[offering_id] = {**offering, "_plan": plan["TrainingPlanName"]}
        out.append(offering)
    return out


def extend_plan(backend: Any, offering_id: str) -> list[dict[str, Any]]:
    with _lock:
        offering = _offerings(backend).get(offering_id)
        plan = _store(backend).get(offering.get("_plan", "")) if offering else None
        if offering is None or plan is None or offering["StartDate"] != plan["EndTime"]:
            raise ResourceNotFound(f"Training plan extension offering {offering_id} was not found; search again.")
        plan["EndTime"] = offering["EndDate"]
        plan["DurationHours"] += offering["DurationHours"]
        plan["_extensions"].append(
            {
                **{k: v for k, v in offering.items() if not k.startswith("_")},
                "ExtendedAt": datetime.now(UTC),
                "Status": status(plan),
                "PaymentStatus": "Completed",
            }
        )
        return list(plan["_extensions"])


def extension_history(backend: Any, name_or_arn: str) -> list[dict[str, Any]]:
    plan = find(backend, name_or_arn)
    if plan is None:
        raise ResourceNotFound(f"Training plan {name_or_arn} was not found.")
    return list(plan["_extensions"])


# ============================================================================ response methods


def install(in_use: Any, zones_of_type: Any) -> None:
    """``in_use(backend, arn)`` counts a plan's instances; ``zones_of_type(response, params)`` lists zones."""
    from moto.core.responses import ActionResult
    from moto.sagemaker.responses import SageMakerResponse

    def params_of(self: Any) -> dict[str, Any]:
        return dict(self.params or json.loads(self.body or "{}"))

    def search(self: Any) -> ActionResult:
        params = params_of(self)
        backend = self.sagemaker_backend
        if params.get("TrainingPlanArn"):
            return ActionResult(
                {"TrainingPlanExtensionOfferings": extension_offerings(backend, params["TrainingPlanArn"])}
            )
        return ActionResult({"TrainingPlanOfferings": search_offerings(backend, params, zones_of_type(self, params))})

    def create(self: Any) -> ActionResult:
        return ActionResult({"TrainingPlanArn": create_plan(self.sagemaker_backend, params_of(self))})

    def describe(self: Any) -> ActionResult:
        name = self._get_param("TrainingPlanName")
        backend = self.sagemaker_backend
        plan = find(backend, name)
        if plan is None:
            raise ResourceNotFound(f"Training plan {name} was not found.")
        return ActionResult(view(plan, in_use(backend, plan["TrainingPlanArn"])))

    def list_plans(self: Any) -> ActionResult:
        backend = self.sagemaker_backend
        params = params_of(self)
        wanted = {f["Value"] for f in params.get("Filters") or [] if f.get("Name") == "Status"}
        drop = ("UnhealthyInstanceCount", "AvailableSpareInstanceCount")  # not in TrainingPlanSummary
        items = []
        for plan in list(_store(backend).values()):
            summary = view(plan, in_use(backend, plan["TrainingPlanArn"]))
            if wanted and summary["Status"] not in wanted:
                continue
            items.append({k: v for k, v in summary.items() if k not in drop})
        return ActionResult({"TrainingPlanSummaries": items})

    def extend(self: Any) -> ActionResult:
        offering_id = str(params_of(self).get("TrainingPlanExtensionOfferingId") or "")
        return ActionResult({"TrainingPlanExtensions": extend_plan(self.sagemaker_backend, offering_id)})

    def history(self: Any) -> ActionResult:
        name = str(params_of(self).get("TrainingPlanArn") or "")
        return ActionResult({"TrainingPlanExtensions": extension_history(self.sagemaker_backend, name)})

    for name, method in (
        ("search_training_plan_offerings", search),
        ("create_training_plan", create),
        ("describe_training_plan", describe),
        ("list_training_plans", list_plans),
        ("extend_training_plan", extend),
        ("describe_training_plan_extension_history", history),
    ):
        setattr(SageMakerResponse, name, method)  # moto 5.2.5 has none of these calls
