"""``/mcp``: the MCP gateway's ASGI app mounted on the sandbox's port, or a 503 while it is not built."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp

from sandbox.gateway.proxy import error_envelope
from sandbox.gateway.routing import AnyMethod, Passthrough


async def _unavailable(request: Request) -> Response:
    return error_envelope(503, "UPSTREAM_UNAVAILABLE", "The MCP gateway is not built yet.", str(uuid.uuid4()))


def mcp_routes(mcp_app: ASGIApp | None, *, strip_prefix: bool) -> list[BaseRoute]:
    """With ``strip_prefix=False`` the path is passed unchanged (``/mcp``, ``/mcp/...``), which suits an
    MCP app that serves its own ``/mcp`` endpoint (FastMCP's ``streamable_http_app()``); with True it is
    mounted like ``Mount("/mcp", mcp_app)`` (path stripped, ``root_path="/mcp"``)."""
    if mcp_app is None:
        return [Route("/mcp", AnyMethod(_unavailable)), Route("/mcp/{path:path}", AnyMethod(_unavailable))]
    if strip_prefix:
        return [Mount("/mcp", app=mcp_app)]
    # A Route whose endpoint is an ASGI object passes the scope on with its path unchanged.
    return [Route("/mcp", Passthrough(mcp_app)), Route("/mcp/{path:path}", Passthrough(mcp_app))]


def mcp_lifespan(mcp_app: ASGIApp | None) -> Any:
    """The gateway's lifespan: a Starlette ``mcp_app``'s own runs inside it (the MCP streamable-HTTP
    session manager only runs inside its app's lifespan)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        inner = getattr(getattr(mcp_app, "router", None), "lifespan_context", None)
        if inner is None:
            yield
            return
        async with inner(mcp_app):
            yield

    return lifespan
