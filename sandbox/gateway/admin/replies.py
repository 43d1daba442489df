"""What every ``/api/sandbox/*`` control shares: the admin guard's type, the error envelope Launchpod's
API answers with ({code, message, details, requestId}), and reading a JSON body that may not be JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

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
