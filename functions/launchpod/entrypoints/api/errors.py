"""The one mapping from errors to HTTP: not found 404, conflict 409, forbidden 403, retryable 503
with Retry-After, validation 422 with the field path, anything else 500 without internals."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import ServiceError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from launchpod.contracts.common import PATTERN_HINTS, openai_compatible
from launchpod.contracts.errors import ErrorCode, ErrorDetail, ErrorView
from launchpod.domain.errors import InvalidInput, LaunchpodError, RetryableError
from launchpod.entrypoints.api.lazy_routes import routes
from launchpod.entrypoints.observability import logger

# The one table from Launchpod's error codes to HTTP statuses (the domain knows no HTTP).
STATUS: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION_FAILED: 422,
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
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

# pydantic's words for a list's length or a number's bound ("List should have at least 2 items after
# validation, not 1"), said as what to give.
_BOUNDS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "too_short": lambda name, c: f"{name} takes at least {c.get('min_length')}; {c.get('actual_length')} given",
    "too_long": lambda name, c: f"{name} takes at most {c.get('max_length')}; {c.get('actual_length')} given",
    "greater_than_equal": lambda name, c: f"{name} must be at least {c.get('ge')}",
    "less_than_equal": lambda name, c: f"{name} must be at most {c.get('le')}",
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
) -> Response[Any]:
    body = ErrorView(
        code=code,
        message=message,
        details=[ErrorDetail(**d) for d in details or []],
        requestId=_request_id(app),
    )
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=body_of(app.current_event.path, status, body),
        headers=headers or {},
    )


def body_of(path: str, status: int, view: ErrorView) -> str:
    """The envelope as JSON; on the OpenAI-compatible routes with OpenAI's ``error`` object beside it, which
    OpenAI SDKs read the message from (their typed errors follow the status)."""
    if openai_compatible(path):
        from launchpod.contracts.chat import openai_error  # with the OpenAI routes' models, imported for them

        return openai_error(status, view).model_dump_json()
    return view.model_dump_json()


class UnsupportedMediaType(LaunchpodError):
    code = ErrorCode.UNSUPPORTED_MEDIA_TYPE


class UnreadableBody(LaunchpodError):
    code = ErrorCode.BAD_REQUEST


def check_body(event: dict[str, Any]) -> None:
    """A body must be a JSON object: another declared Content-Type is 415, a body that is not UTF-8
    text 400, JSON that is not an object 422 (before routing, so no route sees them)."""
    if not event.get("body"):
        return
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    declared = str(headers.get("content-type") or "").split(";")[0].strip().lower()
    json_like = declared == "application/json" or (declared.startswith("application/") and declared.endswith("+json"))
    if declared and not json_like:
        raise UnsupportedMediaType(f"The body is {declared}; send it as JSON with Content-Type: application/json.")
    text = str(event["body"])
    if event.get("isBase64Encoded"):  # API Gateway base64-encodes a body that is not text
        try:
            text = base64.b64decode(text, validate=True).decode("utf-8")
        except ValueError as exc:  # binascii.Error and UnicodeDecodeError are both ValueErrors
            raise UnreadableBody("The body is not UTF-8 text; send JSON encoded as UTF-8.") from exc
    try:
        parsed = json.loads(text)
    except ValueError:
        return  # the JSON error handler answers with where the JSON breaks
    if not isinstance(parsed, dict):
        raise InvalidInput(
            "The body must be a JSON object ({...}) with the request's fields.", field="body", rule="object"
        )


def early_response(event: dict[str, Any], exc: LaunchpodError) -> dict[str, Any]:
    """The envelope for an error raised before the resolver runs (authentication)."""
    body = ErrorView(
        code=exc.code,
        message=exc.message,
        details=[ErrorDetail(**d) for d in exc.details or []],
        requestId=(event.get("requestContext") or {}).get("requestId"),
    )
    return {
        "statusCode": status_of(exc),
        "headers": {"Content-Type": content_types.APPLICATION_JSON, "Access-Control-Allow-Origin": "*"},
        "body": body_of(str(event.get("path") or ""), status_of(exc), body),
        "isBase64Encoded": False,
    }


def _detail(error: dict[str, Any]) -> dict[str, Any]:
    loc = [str(p) for p in error.get("loc", ())]
    rule = str(error.get("type", "invalid"))
    if rule == "json_invalid":
        # pydantic's loc for broken JSON is ("body", <character offset>): an offset, not a field
        offset = loc[1] if len(loc) > 1 else "?"
        why = str((error.get("ctx") or {}).get("error") or "it cannot be parsed")
        return {"field": "body", "rule": rule, "message": f"The body is not valid JSON at character {offset}: {why}."}
    name = loc[-1] if loc else "request"
    msg = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    if rule == "string_pattern_mismatch":
        pattern = (error.get("ctx") or {}).get("pattern", "")
        text = f"{name} must be {PATTERN_HINTS[pattern]}" if pattern in PATTERN_HINTS else f"{name}: {msg}"
    elif rule in _FRIENDLY:
        text = f"{name} {_FRIENDLY[rule]}"
    elif rule in _BOUNDS:
        text = _BOUNDS[rule](name, error.get("ctx") or {})
    else:
        text = f"{name}: {msg}"
    return {"field": ".".join(loc) or None, "rule": rule, "message": text}


def install(app: APIGatewayRestResolver) -> None:
    @app.exception_handler(RequestValidationError)
    def _validation(exc: RequestValidationError) -> Response[Any]:
        details = [_detail(e) for e in exc.errors()]
        first = details[0] if details else {"field": None, "message": "The request is not valid."}
        where = f" ({first['field']})" if first.get("field") else ""
        return envelope(app, 422, ErrorCode.VALIDATION_FAILED, f"{first['message']}{where}", details)

    @app.exception_handler(LaunchpodError)
    def _domain(exc: LaunchpodError) -> Response[Any]:
        headers = {"Retry-After": "5"} if isinstance(exc, RetryableError) else None
        status = status_of(exc)
        if status >= 500 and not isinstance(exc, RetryableError):
            logger.exception("request failed")
            return envelope(app, 500, ErrorCode.INTERNAL, "Something went wrong on our side; try again.")
        extra = {k: v for k, v in exc.extra.items() if k == "holder" and v}
        details = exc.details or ([{"field": None, "rule": "held_by", "message": extra["holder"]}] if extra else [])
        return envelope(app, status, exc.code, exc.message, details, headers)

    @app.exception_handler(ServiceError)
    def _service(exc: ServiceError) -> Response[Any]:
        return envelope(
            app, exc.status_code, ErrorCode.BAD_REQUEST if exc.status_code < 500 else ErrorCode.INTERNAL, str(exc.msg)
        )

    @app.exception_handler(json.JSONDecodeError)
    def _bad_json(exc: json.JSONDecodeError) -> Response[Any]:
        return envelope(
            app,
            422,
            ErrorCode.VALIDATION_FAILED,
            f"The body is not valid JSON: {exc.msg}.",
            [{"field": "body", "rule": "json_invalid", "message": "The body is not valid JSON."}],
        )

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response[Any]:
        logger.exception("unhandled error")
        return envelope(app, 500, ErrorCode.INTERNAL, "Something went wrong on our side; try again.")

    @app.not_found
    def _not_found(exc: Exception) -> Response[Any]:
        path, method = app.current_event.path, app.current_event.http_method
        allowed = methods_for(path)
        if allowed and method not in allowed:
            # RFC 9110 §15.5.6: a known resource with another method is 405, with the methods it has.
            return envelope(
                app,
                405,
                ErrorCode.METHOD_NOT_ALLOWED,
                f"{path} does not take {method}; it takes {', '.join(allowed)}.",
                headers={"Allow": ", ".join(allowed)},
            )
        if allowed:  # the route exists but a path parameter has characters no name can have
            return envelope(app, 404, ErrorCode.NOT_FOUND, f"Nothing is named as in {path}; check the names in it.")
        return envelope(app, 404, ErrorCode.NOT_FOUND, f"No route {method} {path}; see /api/docs.")


def wrong_method(event: dict[str, Any]) -> dict[str, Any] | None:
    """405 for a method the path's resource does not take, before routing. OpenAPI matches a concrete
    path before a templated one (``/nodes/reboot`` before ``/nodes/{nodeId}``), and so does this: GET
    ``/nodes/reboot`` is a method ``reboot`` does not take, not a node named ``reboot``."""
    path, method = str(event.get("path") or ""), str(event.get("httpMethod") or "").upper()
    matches = [r for r in routes() if _template(r.path).fullmatch(path)]
    if not matches or method in ("OPTIONS", "HEAD"):
        return None
    fewest = min(r.path.count("{") for r in matches)
    allowed = sorted({r.method for r in matches if r.path.count("{") == fewest})
    if method in allowed:
        return None
    body = ErrorView(
        code=ErrorCode.METHOD_NOT_ALLOWED,
        message=f"{path} does not take {method}; it takes {', '.join(allowed)}.",
        requestId=(event.get("requestContext") or {}).get("requestId"),
    )
    return {
        "statusCode": 405,
        "headers": {
            "Content-Type": content_types.APPLICATION_JSON,
            "Access-Control-Allow-Origin": "*",
            "Allow": ", ".join(allowed),
        },
        "body": body_of(path, 405, body),
        "isBase64Encoded": False,
    }


def methods_for(path: str) -> list[str]:
    """The methods the catalog serves on a path (empty when no route has that path)."""
    return sorted({r.method for r in routes() if _template(r.path).fullmatch(path)})


@cache
def _template(path: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path)))
