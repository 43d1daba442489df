"""The one mapping from errors to HTTP: not found 404, conflict 409, forbidden 403, retryable 503
with Retry-After, validation 422 with the field path, anything else 500 without internals."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import ServiceError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from launchpod.contracts.common import PATTERN_HINTS
from launchpod.contracts.errors import ErrorCode, ErrorDetail, ErrorView
from launchpod.domain.errors import LaunchpodError, RetryableError
from launchpod.entrypoints.observability import logger

# The one table from Launchpod's error codes to HTTP statuses (the domain knows no HTTP).
STATUS: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION_FAILED: 422,
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.CONFLICT: 409,
    ErrorCode.FAILED: 400,
    ErrorCode.RETRYABLE: 503,
    ErrorCode.INTERNAL: 500,
}


def status_of(exc: LaunchpodError) -> int:
    return STATUS[ErrorCode(exc.code)]


_FRIENDLY = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request; remove it",
    "json_invalid": "is not valid JSON",
}


def _request_id(app: APIGatewayRestResolver) -> str | None:
    context = app.current_event.raw_event.get("requestContext") or {}
    return context.get("requestId")


def envelope(
    app: APIGatewayRestResolver,
    status: int,
    code: ErrorCode,
    message: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body = ErrorView(
        code=code,
        message=message,
        details=[ErrorDetail(**d) for d in details or []],
        requestId=_request_id(app),
    )
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=body.model_dump_json(),
        headers=headers or {},
    )


def early_response(event: dict[str, Any], exc: LaunchpodError) -> dict[str, Any]:
    """The envelope for an error raised before the resolver runs (authentication)."""
    body = ErrorView(code=exc.code, message=exc.message, requestId=(event.get("requestContext") or {}).get("requestId"))
    return {
        "statusCode": status_of(exc),
        "headers": {"Content-Type": content_types.APPLICATION_JSON, "Access-Control-Allow-Origin": "*"},
        "body": body.model_dump_json(),
        "isBase64Encoded": False,
    }


def _detail(error: dict[str, Any]) -> dict[str, Any]:
    loc = [str(p) for p in error.get("loc", ())]
    rule = str(error.get("type", "invalid"))
    name = loc[-1] if loc else "request"
    msg = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    if rule == "string_pattern_mismatch":
        pattern = (error.get("ctx") or {}).get("pattern", "")
        text = f"{name} must be {PATTERN_HINTS[pattern]}" if pattern in PATTERN_HINTS else f"{name}: {msg}"
    elif rule in _FRIENDLY:
        text = f"{name} {_FRIENDLY[rule]}"
    else:
        text = f"{name}: {msg}"
    return {"field": ".".join(loc) or None, "rule": rule, "message": text}


def install(app: APIGatewayRestResolver) -> None:
    @app.exception_handler(RequestValidationError)
    def _validation(exc: RequestValidationError) -> Response:
        details = [_detail(e) for e in exc.errors()]
        first = details[0] if details else {"field": None, "message": "The request is not valid."}
        where = f" ({first['field']})" if first.get("field") else ""
        return envelope(app, 422, ErrorCode.VALIDATION_FAILED, f"{first['message']}{where}", details)

    @app.exception_handler(LaunchpodError)
    def _domain(exc: LaunchpodError) -> Response:
        headers = {"Retry-After": "5"} if isinstance(exc, RetryableError) else None
        status = status_of(exc)
        if status >= 500 and not isinstance(exc, RetryableError):
            logger.exception("request failed")
            return envelope(app, 500, ErrorCode.INTERNAL, "Something went wrong on our side; try again.")
        extra = {k: v for k, v in exc.extra.items() if k == "holder" and v}
        details = exc.details or ([{"field": None, "rule": "held_by", "message": extra["holder"]}] if extra else [])
        return envelope(app, status, exc.code, exc.message, details, headers)

    @app.exception_handler(ServiceError)
    def _service(exc: ServiceError) -> Response:
        return envelope(
            app, exc.status_code, ErrorCode.BAD_REQUEST if exc.status_code < 500 else ErrorCode.INTERNAL, exc.msg
        )

    @app.exception_handler(json.JSONDecodeError)
    def _bad_json(exc: json.JSONDecodeError) -> Response:
        return envelope(
            app,
            422,
            ErrorCode.VALIDATION_FAILED,
            f"The body is not valid JSON: {exc.msg}.",
            [{"field": "body", "rule": "json_invalid", "message": "The body is not valid JSON."}],
        )

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        logger.exception("unhandled error")
        return envelope(app, 500, ErrorCode.INTERNAL, "Something went wrong on our side; try again.")

    @app.not_found
    def _not_found(exc: Exception) -> Response:
        path = app.current_event.path
        return envelope(
            app, 404, ErrorCode.NOT_FOUND, f"No route {app.current_event.http_method} {path}; see /api/docs."
        )
