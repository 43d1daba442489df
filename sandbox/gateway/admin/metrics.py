"""Sandbox-only control of the Prometheus query results KEDA reads (sandbox.controllers.keda's state) at
/api/sandbox/metrics (admin token): POST {"cluster", "query", "value"} sets one, GET lists them."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.controllers.keda import keda_state
from sandbox.gateway.admin.replies import Guard, control_route, invalid

_HELP = 'Send {"cluster": "c1", "query": "sum(vllm:num_requests_waiting)", "value": 25}.'


def _apply(body: Any) -> JSONResponse | None:
    if (
        not isinstance(body, dict)
        or set(body) != {"cluster", "query", "value"}
        or not isinstance(body["value"], int | float)
        or not all(isinstance(body[k], str) and body[k] for k in ("cluster", "query"))
    ):
        return invalid(_HELP)
    keda_state().metrics[(body["cluster"], body["query"])] = float(body["value"])
    return None


def _describe(request: Request) -> JSONResponse:
    items = [{"cluster": c, "query": q, "value": v} for (c, q), v in sorted(keda_state().metrics.items())]
    return JSONResponse({"items": items})


def metrics_route(admin_or_error: Guard) -> Route:
    return control_route("/api/sandbox/metrics", admin_or_error, _apply, _describe)
