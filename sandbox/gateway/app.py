"""``build_gateway``: the routes of the sandbox's one port, assembled (see the package docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp

from sandbox.auth import SandboxTokens
from sandbox.gateway.connections import connections, install_management_api_patch
from sandbox.gateway.mcp import mcp_lifespan, mcp_routes
from sandbox.gateway.proxy import Invoker, LambdaInvoke
from sandbox.gateway.rest import RestApi, Stage
from sandbox.gateway.routing import AnyMethod
from sandbox.gateway.static import StaticSite
from sandbox.gateway.websocket import WebSocketApi


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok", "connections": len(connections().ids())})


def build_gateway(
    *,
    lambda_invoke: LambdaInvoke,
    tokens: SandboxTokens,
    mcp_app: ASGIApp | None = None,
    web_dir: str | Path | None = None,
    api_id: str = "lpsandbox",
    stage: str = "prod",
    region: str = "us-east-1",
    mcp_strip_prefix: bool = False,
    admin_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """Build the sandbox gateway (see the package docstring).

    ``lambda_invoke(function_name, event) -> dict`` runs a Lambda synchronously; it is called on a
    worker thread and may raise or return a Lambda error payload (``errorMessage``/``errorType``).
    ``mcp_app`` receives every request under ``/mcp`` (``sandbox.gateway.mcp`` says how
    ``mcp_strip_prefix`` passes the path); a Starlette ``mcp_app``'s lifespan runs inside the gateway's.
    ``web_dir`` is checked per request, so a web build that appears later is picked up without a
    restart. ``admin_routes`` (the sandbox's own ``/api/sandbox/*``) answer before ``/api`` forwards
    to the API Lambda.
    """
    registry = connections()
    install_management_api_patch(registry)
    invoke, where = Invoker(lambda_invoke), Stage(api_id=api_id, stage=stage, region=region)
    rest = AnyMethod(RestApi(invoke, tokens, where))
    routes: list[BaseRoute] = [
        *admin_routes,
        Route("/healthz", _healthz, methods=["GET", "HEAD"]),
        Route("/api", rest),
        Route("/api/{path:anypath}", rest),
        WebSocketRoute("/ws", WebSocketApi(invoke, tokens, where, registry).serve),
        *mcp_routes(mcp_app, strip_prefix=mcp_strip_prefix),
        Route("/{path:path}", AnyMethod(StaticSite(web_dir))),
    ]
    return Starlette(routes=routes, lifespan=mcp_lifespan(mcp_app))
