"""The Lambda proxy: how the gateway invokes a function, reads its answer, and answers in the project's
error envelope when it cannot; plus the pieces of an API Gateway event that REST and WebSocket share.

API Gateway developer guide, "Set up Lambda proxy integrations in API Gateway": the function answers
``{statusCode, headers, multiValueHeaders, body, isBase64Encoded}``; anything else is a 502.
"""

from __future__ import annotations

import base64
import datetime
import secrets
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

LambdaInvoke = Callable[[str, dict[str, Any]], dict[str, Any]]


class Invoker:
    """Runs ``lambda_invoke(function_name, event) -> dict`` on a worker thread: handlers call
    post_to_connection, which needs the server's event loop free while they run."""

    def __init__(self, lambda_invoke: LambdaInvoke) -> None:
        self._lambda_invoke = lambda_invoke

    async def __call__(self, function_name: str, event: dict[str, Any]) -> Any:
        return await run_in_threadpool(self._lambda_invoke, function_name, event)


def error_envelope(
    status: int, code: str, message: str, request_id: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The project's one error shape, {code, message, details[], requestId}, from the gateway itself."""
    return JSONResponse(
        {"code": code, "message": message, "details": [], "requestId": request_id},
        status_code=status,
        headers={"x-amzn-RequestId": request_id, **(headers or {})},
    )


def lambda_error(result: Any) -> str | None:
    """Why a Lambda proxy result is unusable, or None if it is a proper proxy response."""
    if not isinstance(result, dict):
        return "the function returned no proxy response"
    if "errorMessage" in result or "errorType" in result:
        return f"the function failed: {result.get('errorType', 'Error')}"
    if "statusCode" not in result:
        return "Malformed Lambda proxy response"
    try:
        int(result["statusCode"])
    except (TypeError, ValueError):
        return "Malformed Lambda proxy response"
    return None


def request_time(now: float) -> str:
    """API Gateway's format: 30/Nov/2026:21:30:00 +0000."""
    return datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")


def short_id() -> str:
    """An extendedRequestId or messageId: 8 base64 characters."""
    return base64.b64encode(secrets.token_bytes(6)).decode("ascii")


def multi(items: list[tuple[str, str]]) -> tuple[dict[str, str] | None, dict[str, list[str]] | None]:
    """Single- and multi-value maps of headers or query parameters."""
    # API Gateway sends null, not {}, when there are no values; single-value maps keep the last value.
    if not items:
        return None, None
    values: dict[str, list[str]] = {}
    for key, value in items:
        values.setdefault(key, []).append(value)
    return {k: v[-1] for k, v in values.items()}, values


def body_of(raw: bytes) -> tuple[str | None, bool]:
    """An event's body and isBase64Encoded: text when it is UTF-8, base64 otherwise."""
    if not raw:
        return None, False
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii"), True


def token_from(authorization: str | None) -> str | None:
    """A Cognito authorizer takes the raw header value; accept it with or without a Bearer scheme."""
    if not authorization:
        return None
    value = authorization.strip()
    if value[:7].lower() == "bearer ":
        value = value[7:].strip()
    return value or None
