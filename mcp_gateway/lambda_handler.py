"""The gateway as an AWS Lambda function: the same ASGI app behind Mangum, so idle costs nothing.

The container image runs this when Lambda starts it (the entrypoint sees ``AWS_LAMBDA_RUNTIME_API``).
Put a Lambda function URL or an API Gateway HTTP API in front (both send payload format 2.0). Responses
are plain JSON rather than SSE, since Lambda returns a buffered response.

Environment: ``LAUNCHPOD_API_URL`` (required: the base URL; REST under ``/api``) and
``LAUNCHPOD_MCP_MAX_WAIT_SECONDS`` (default 300): keep it under the function timeout, and under 29 s
behind API Gateway, whose integration timeout ends longer requests.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from mangum import Mangum

from mcp_gateway.server import build_asgi_app
from mcp_gateway.tools import MAX_WAIT_SECONDS


def make_handler(environ: Mapping[str, str] = os.environ) -> Mangum:
    api_url = environ.get("LAUNCHPOD_API_URL")
    if not api_url:
        raise RuntimeError("LAUNCHPOD_API_URL is not set: the gateway needs the Launchpod API's base URL")
    max_wait = float(environ.get("LAUNCHPOD_MCP_MAX_WAIT_SECONDS", MAX_WAIT_SECONDS))
    # Stateless: a session cannot outlive an invocation, so every tool is listed (or the X-MCP-Toolsets header's).
    app = build_asgi_app(api_url, json_response=True, max_wait_seconds=max_wait, stateless=True)
    # lifespan="on": Mangum runs it around each invocation; the app starts a fresh session manager each time.
    return Mangum(app, lifespan="on")


_handler: Mangum | None = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _handler
    if _handler is None:
        _handler = make_handler()
    return _handler(event, context)
