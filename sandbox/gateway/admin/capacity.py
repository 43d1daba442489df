"""Sandbox-only control of HyperPod capacity at /api/sandbox/capacity (admin token): the SageMaker
cluster-usage quotas Service Quotas reports, and Spot capacity per zone and type (``sandbox.aws.sagemaker.capacity``).
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
    '"ml.p5.48xlarge", "available": 1}], "clear": true}; a quota or available of null restores the default.'
)


def _apply(body: Any) -> JSONResponse | None:
    if not isinstance(body, dict) or not set(body) <= {"quotas", "spotCapacity", "clear"}:
        return invalid(_HELP)
    if body.get("clear"):
        capacity.clear()
    quotas = body.get("quotas") or {}
    spot = body.get("spotCapacity") or []
    if not isinstance(quotas, dict) or not all(v is None or isinstance(v, int | float) for v in quotas.values()):
        return invalid(_HELP)
    if not isinstance(spot, list) or not all(
        isinstance(s, dict) and {"zone", "instanceType"} <= set(s) <= {"zone", "instanceType", "available"}
        for s in spot
    ):
        return invalid(_HELP)
    for instance_type, value in quotas.items():
        capacity.set_quota(str(instance_type), value)
    for s in spot:
        capacity.set_spot_capacity(str(s["zone"]), str(s["instanceType"]), s.get("available"))
    return None


def _describe(request: Request) -> JSONResponse:
    return JSONResponse(capacity.describe())


def capacity_route(admin_or_error: Guard) -> Route:
    return control_route("/api/sandbox/capacity", admin_or_error, _apply, _describe)
