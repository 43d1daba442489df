"""Routes declared from the operation catalog: path, method, OpenAPI metadata and the role check
all come from one CatalogEntry, so the catalog cannot drift from what the API serves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic import BaseModel

from launchpod.contracts.catalog_ops import entry
from launchpod.contracts.errors import ErrorView
from launchpod.entrypoints.api.auth import require

_ERRORS = {
    401: "No token, or not a valid one",
    403: "Your role does not allow this",
    404: "Not found",
    409: "The cluster is busy, or the operation is in the wrong state",
    422: "The request breaks a rule; details name the field",
    503: "AWS is throttling or unavailable; retry after Retry-After seconds",
}


def route(router: APIGatewayRouter, op_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    e = entry(op_id)
    success = 202 if e.accepted else 200
    responses: dict[int, Any] = {
        success: {"description": "OK", "content": {"application/json": {"model": e.response}}},
    }
    if e.role is not None:
        for status, text in _ERRORS.items():
            if status == 409 and not e.mutates:
                continue
            responses[status] = {"description": text, "content": {"application/json": {"model": ErrorView}}}
    return router.route(
        rule=e.path.replace("{", "<").replace("}", ">").removeprefix("/api") or "/",
        method=e.method,
        operation_id=e.id,
        summary=e.summary,
        description=e.description,
        tags=list(e.tags),
        responses=responses,
        middlewares=[require(e.role)] if e.role else None,
    )


def json_response(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=model, headers=headers or {})
