"""Sandbox-only view of what SNS was asked to deliver (sandbox.aws.sns) at /api/sandbox/sns (admin token):
GET lists every delivery (protocol, endpoint, attributes, message, outcome); POST {"confirm":
"<subscription ARN>"} stands in for the address following SNS's confirmation link."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.aws import sns
from sandbox.gateway.admin.replies import Guard, control_route, error, invalid

_HELP = 'Send {"confirm": "arn:aws:sns:us-east-1:123456789012:launchpod-notifications:<id>"}.'


def _apply(body: Any) -> JSONResponse | None:
    if not isinstance(body, dict) or set(body) != {"confirm"} or not isinstance(body["confirm"], str):
        return invalid(_HELP)
    try:
        sns.confirm(body["confirm"])
    except KeyError:
        return error(404, "NOT_FOUND", f"SNS has no subscription {body['confirm']}.")
    return None


def _describe(request: Request) -> JSONResponse:
    protocol = request.query_params.get("protocol")
    return JSONResponse({"items": [asdict(d) for d in sns.deliveries(protocol)]})


def sns_route(admin_or_error: Guard) -> Route:
    return control_route("/api/sandbox/sns", admin_or_error, _apply, _describe)
