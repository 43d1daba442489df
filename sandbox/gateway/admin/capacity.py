"""Sandbox-only control of HyperPod capacity at /api/sandbox/capacity (admin token): the SageMaker
cluster-usage quotas Service Quotas reports, Spot capacity per zone and type, and On-Demand capacity per zone
and type (``instanceCapacity``: 0 is "no capacity for type X", which a flexible group falls back from)
(``sandbox.aws.sagemaker.capacity``).
Training plans need no control: reserve them with SearchTrainingPlanOfferings and CreateTrainingPlan."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.aws.sagemaker import capacity
from sandbox.gateway.admin.replies import Guard, control_route, invalid

_HELP = (
    'Send {"quotas": {"ml.p5.48xlarge": 4}, "spotCapacity": [{"zone": "us-east-1a", "instanceType": '
    '"ml.p5.48xlarge", "available": 1}], "instanceCapacity": [{"zone": "us-east-1a", "instanceType": '
    '"ml.p5.48xlarge", "available": 0}], "clear": true}; a quota or available of null restores the default.'
)
_KINDS = {"spotCapacity": capacity.set_spot_capacity, "instanceCapacity": capacity.set_type_capacity}


def _apply(body: Any) -> JSONResponse | None:
    if not isinstance(body, dict) or not set(body) <= {"quotas", "clear", *_KINDS}:
        return invalid(_HELP)
    if body.get("clear"):
        capacity.clear()
    quotas = body.get("quotas") or {}
    if not isinstance(quotas, dict) or not all(v is None or isinstance(v, int | float) for v in quotas.values()):
        return invalid(_HELP)
    for kind in _KINDS:
        caps = body.get(kind) or []
        if not isinstance(caps, list) or not all(
            isinstance(s, dict) and {"zone", "instanceType"} <= set(s) <= {"zone", "instanceType", "available"}
            for s in caps
        ):
            return invalid(_HELP)
    for instance_type, value in quotas.items():
        capacity.set_quota(str(instance_type), value)
    for kind, apply in _KINDS.items():
        for s in body.get(kind) or []:
            apply(str(s["zone"]), str(s["instanceType"]), s.get("available"))
    return None


def _describe(request: Request) -> JSONResponse:
    return JSONResponse(capacity.describe())


def capacity_route(admin_or_error: Guard) -> Route:
    return control_route("/api/sandbox/capacity", admin_or_error, _apply, _describe)
