"""What every ``/api/sandbox/*`` control shares: the admin guard's type, the error envelope Launchpod's
API answers with ({code, message, details, requestId}), reading a JSON body that may not be JSON, and the
route of a control that POST changes and GET (and every accepted POST) answers with as it now stands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

Guard = Callable[[Request], JSONResponse | None]
"""Answers the refusal when a request does not carry the admin token, else None."""


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "details": [], "requestId": None}, status_code=status)


def invalid(message: str) -> JSONResponse:
    return error(422, "VALIDATION_FAILED", message)


async def json_body(request: Request) -> Any:
    """The request's JSON body, or None when it is not JSON (the caller's shape check then refuses it)."""
    try:
        return await request.json()
    except ValueError:
        return None


def control_route(
    path: str,
    admin_or_error: Guard,
    apply: Callable[[Any], JSONResponse | None],
    describe: Callable[[Request], JSONResponse],
) -> Route:
    """GET ``path`` answers ``describe``; POST hands its body to ``apply`` first, whose refusal it answers
    instead. Both need the admin token."""

    async def control(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        if request.method == "POST":
            refused = apply(await json_body(request))
            if refused:
                return refused
        return describe(request)

    return Route(path, control, methods=["GET", "POST"])
