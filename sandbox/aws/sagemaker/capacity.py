"""moto extensions for where HyperPod capacity comes from: training plans, the Service Quotas of
SageMaker's cluster usage, and Spot capacity that runs short in a zone.

* Training plans (sandbox.aws.sagemaker.training_plans: offerings with prices and start times, plans Scheduled,
  Active then Expired on the sandbox clock, extensions): ``InUseInstanceCount`` counts the HyperPod
  instances of groups that name the plan (``TrainingPlanArn``); ``AvailableInstanceCount`` is the rest.
  UpdateCluster refuses a group whose type, zone (its subnet's) or count the plan cannot serve ("Training
  plans ... reserved capacity in one Availability Zone",
  https://docs.aws.amazon.com/sagemaker/latest/dg/reserve-capacity-with-training-plans.html).
* Service Quotas for ``sagemaker`` (moto knows only ``vpc``): one quota per HyperPod instance type named
  ``<type> for cluster usage``, as the SageMaker console lists them, counting the instances of that type
  across the account's HyperPod clusters in the region. UpdateCluster over the quota answers
  ``ResourceLimitExceeded`` with SageMaker's account-level limit wording. Quota codes are the sandbox's
  own (``L-`` and 8 hex digits from the name): find a quota by its name, as AWS's codes are opaque.
  ``set_quota(type, value)`` changes one (the sandbox's ``/api/sandbox/capacity`` control).
* Spot: ``set_spot_capacity(zone, type, n)`` caps the Spot instances of a type a zone can give; a Spot
  group that asks for more gets what is there and is ``Failed`` with EC2's insufficient-capacity words,
  as a Spot request in a short zone is ("Spot Instances ... when capacity is available",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-spot.html).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from moto.sagemaker.exceptions import SagemakerClientError

from sandbox.aws.sagemaker import training_plans
from sandbox.aws.sagemaker.common import instance_types
from sandbox.aws.state import STATE

_lock = threading.RLock()


@dataclass
class CapacityState:
    """The cluster-usage quotas and the Spot capacity the sandbox's controls set."""

    quotas: dict[str, float] = field(default_factory=dict)  # instance type -> cluster-usage quota set
    spot: dict[tuple[str, str], int] = field(
        default_factory=dict
    )  # (zone, instance type) -> Spot instances it can give
    # (zone, instance type) -> On-Demand instances it can give (the "no capacity for type X" fault; 0: none)
    on_demand: dict[tuple[str, str], int] = field(default_factory=dict)


def _state() -> CapacityState:
    return STATE.of(CapacityState)


SERVICE_CODE = "sagemaker"


class ResourceLimitExceeded(SagemakerClientError):
    code = "ResourceLimitExceeded"


# ============================================================================ quotas


def default_quota(instance_type: str) -> float:
    """A usable sandbox default: a few of the large accelerated types, more of the others."""
    name = instance_type.split(".")[1] if instance_type.count(".") >= 2 else instance_type
    if name.startswith(("p4", "p5", "p6", "trn")):
        return 32.0
    if name.startswith(("g5", "g6", "g7", "inf")):
        return 64.0
    return 128.0


def quota_name(instance_type: str) -> str:
    return f"{instance_type} for cluster usage"


def quota_code(instance_type: str) -> str:
    return "L-" + hashlib.sha1(quota_name(instance_type).encode()).hexdigest()[:8].upper()


def quota_value(instance_type: str) -> float:
    with _lock:
        return _state().quotas.get(instance_type, default_quota(instance_type))


def _override(table: dict[Any, Any], key: Any, value: float | None) -> None:
    """Set one override under the lock; None removes it (back to the default)."""
    with _lock:
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value


def set_quota(instance_type: str, value: float | None) -> None:
    _override(_state().quotas, instance_type, None if value is None else float(value))


def set_spot_capacity(zone: str, instance_type: str, available: int | None) -> None:
    _override(_state().spot, (zone, instance_type), None if available is None else int(available))


def set_type_capacity(zone: str, instance_type: str, available: int | None) -> None:
    """Cap the On-Demand instances of a type a zone can give (None: unlimited again)."""
    _override(_state().on_demand, (zone, instance_type), None if available is None else int(available))


def type_capacity(zone: str, instance_type: str) -> int | None:
    with _lock:
        return _state().on_demand.get((zone, instance_type))


def spot_capacity(zone: str, instance_type: str) -> int | None:
    with _lock:
        return _state().spot.get((zone, instance_type))


def clear() -> None:
    with _lock:
        _state().quotas.clear()
        _state().spot.clear()
        _state().on_demand.clear()


def describe() -> dict[str, Any]:
    with _lock:
        return {
            "quotas": dict(_state().quotas),
            "spotCapacity": [
                {"zone": z, "instanceType": t, "available": n} for (z, t), n in sorted(_state().spot.items())
            ],
            "instanceCapacity": [
                {"zone": z, "instanceType": t, "available": n} for (z, t), n in sorted(_state().on_demand.items())
            ],
        }


def _quota(account: str, region: str, instance_type: str) -> dict[str, Any]:
    return {
        "ServiceCode": SERVICE_CODE,
        "ServiceName": "Amazon SageMaker",
        "QuotaArn": f"arn:aws:servicequotas:{region}:{account}:{SERVICE_CODE}/{quota_code(instance_type)}",
        "QuotaCode": quota_code(instance_type),
        "QuotaName": quota_name(instance_type),
        "Value": quota_value(instance_type),
        "Unit": "None",
        "Adjustable": True,
        "GlobalQuota": False,
        "Description": f"The maximum number of {instance_type} instances allowed across SageMaker HyperPod clusters",
    }


def check_quota(instance_type: str, used: int, delta: int) -> None:
    """ResourceLimitExceeded when ``used + delta`` instances of the type exceed its cluster-usage quota."""
    limit = quota_value(instance_type)
    if delta > 0 and used + delta > limit:
        raise ResourceLimitExceeded(
            f"The account-level service limit '{quota_name(instance_type)}' is {limit:g} Instances, with current "
            f"utilization of {used} Instances and a request delta of {delta} Instances. Please use AWS Service "
            "Quotas to request an increase for this quota. If AWS Service Quotas is not available, contact AWS "
            "support to request an increase for this quota."
        )


# ============================================================================ training plans

check_plan = training_plans.check_plan


# ============================================================================ response methods


def _json(self: Any) -> dict[str, Any]:
    return dict(json.loads(self.body or "{}"))


def install(in_use: Any, zones_of_type: Any) -> None:
    """``in_use(backend, arn)`` counts a plan's instances; ``zones_of_type(backend, type)`` lists zones."""
    from moto.servicequotas.responses import ServiceQuotasResponse

    original_list = getattr(ServiceQuotasResponse, "_launchpod_original_list", None) or getattr(
        ServiceQuotasResponse, "list_service_quotas", None
    )
    original_get = getattr(ServiceQuotasResponse, "_launchpod_original_get", None) or (
        ServiceQuotasResponse.get_service_quota
    )

    def list_quotas(self: Any) -> str:
        params = json.loads(self.body or "{}")
        if params.get("ServiceCode") != SERVICE_CODE:
            if original_list is None:
                return json.dumps({"Quotas": []})
            return str(original_list(self))
        quotas = [_quota(self.current_account, self.region, t) for t in instance_types()]
        if params.get("QuotaCode"):
            quotas = [q for q in quotas if q["QuotaCode"] == params["QuotaCode"]]
        return json.dumps({"Quotas": quotas}, default=str)

    def get_quota(self: Any) -> str:
        params = json.loads(self.body or "{}")
        if params.get("ServiceCode") != SERVICE_CODE:
            return str(original_get(self))
        from moto.servicequotas.exceptions import NoSuchResource

        for t in instance_types():
            if quota_code(t) == params.get("QuotaCode"):
                return json.dumps({"Quota": _quota(self.current_account, self.region, t)})
        raise NoSuchResource

    training_plans.install(in_use, zones_of_type)
    # moto knows only vpc's quotas: sagemaker's are answered here, the rest by moto (kept for a later install).
    for name, value in (
        ("_launchpod_original_list", original_list),
        ("_launchpod_original_get", original_get),
        ("list_service_quotas", list_quotas),
        ("get_service_quota", get_quota),
    ):
        setattr(ServiceQuotasResponse, name, value)
