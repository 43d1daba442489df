"""Sandbox-only controls, served by the gateway itself (never by the API Lambda, which must not
know it runs in a sandbox): fault injection at /api/sandbox/faults and the IAM decision log at
/api/sandbox/iam, admin token required."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.auth import bearer_token
from sandbox.aws.iam import propagation


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "details": [], "requestId": None}, status_code=status)


def control_routes(sandbox: Any) -> list[Route]:
    def admin_or_error(request: Request) -> JSONResponse | None:
        claims = sandbox.tokens.claims_for(bearer_token(request.headers.get("authorization")))
        if claims is None:
            return _error(401, "UNAUTHORIZED", "Send the admin token printed by `make sandbox`.")
        if claims.get("cognito:groups") != "admin":
            return _error(403, "FORBIDDEN", "Fault injection needs the admin token.")
        return None

    async def faults(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                return _error(422, "VALIDATION_FAILED", 'Send JSON such as {"failNextEksCreate": true}.')
            known = {
                "failNextEksCreate",
                "failNextHyperPodCreate",
                "message",
                "throttle",
                "clear",
                "deny",
                "iamPropagationSeconds",
            }
            if not isinstance(body, dict) or not set(body) <= known:
                return _error(
                    422,
                    "VALIDATION_FAILED",
                    "Known fields: failNextEksCreate (bool), failNextHyperPodCreate (capacity, lifecycle_script or "
                    "deep_health_check), message (str), throttle (0..1), clear (bool), "
                    'deny ([{"function": "<registry name>", "action": "<service:Action>"}]), '
                    "iamPropagationSeconds (simulated seconds a new role stays unassumable, default 10).",
                )
            if body.get("clear"):
                sandbox.faults.clear()
                sandbox.hyperpod_faults.clear()
                sandbox.iam.clear_denies()
                propagation.set_propagation_seconds(None)
            if "iamPropagationSeconds" in body:
                seconds = body["iamPropagationSeconds"]
                if not isinstance(seconds, int | float) or not 0 <= seconds <= 3600:
                    return _error(422, "VALIDATION_FAILED", "iamPropagationSeconds is 0..3600 simulated seconds.")
                propagation.set_propagation_seconds(float(seconds))
            denies = body.get("deny")
            if denies is not None:
                if not isinstance(denies, list) or not all(
                    isinstance(d, dict) and set(d) == {"function", "action"} for d in denies
                ):
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        'deny is a list of {"function": "<registry name>", "action": "<service:Action>"}.',
                    )
                for d in denies:
                    try:
                        sandbox.iam.deny(str(d["function"]), str(d["action"]))
                    except (KeyError, ValueError) as exc:
                        return _error(422, "VALIDATION_FAILED", str(exc).strip("'\""))
            kind = body.get("failNextHyperPodCreate")
            if kind is not None:
                if kind not in ("capacity", "lifecycle_script", "deep_health_check"):
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        "failNextHyperPodCreate is capacity, lifecycle_script or deep_health_check.",
                    )
                sandbox.hyperpod_faults.fail_next_create(kind, body.get("message"))
            if body.get("failNextEksCreate"):
                sandbox.faults.fail_next_eks_create(body.get("message"))
            if "throttle" in body:
                fraction = body["throttle"]
                if not isinstance(fraction, int | float) or not 0 <= fraction <= 1:
                    return _error(422, "VALIDATION_FAILED", "throttle is a fraction between 0 and 1.")
                sandbox.faults.throttle(float(fraction))
        return JSONResponse(
            {
                **sandbox.faults.describe(),
                "hyperpod": sandbox.hyperpod_faults.describe(),
                "removedGrants": sandbox.iam.report()["removedGrants"],
                "iamPropagationSeconds": propagation.propagation_seconds(),
            }
        )

    async def iam(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        return denied or JSONResponse(sandbox.iam.report())

    return [
        Route("/api/sandbox/faults", faults, methods=["GET", "POST"]),
        Route("/api/sandbox/iam", iam, methods=["GET"]),
    ]
