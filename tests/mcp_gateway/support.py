"""Helpers for the gateway's tests: the host app (fake REST + gateway), and an SDK client session.

The host app mounts the gateway the way the sandbox does (a route at /mcp, the gateway's lifespan run
inside the host's), so these tests also check that the documented mounting works.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.routing import Route

from mcp_gateway.server import build_asgi_app
from tests.mcp_gateway.mcp_fake_rest import TOKENS, FakeLaunchpod, routes

ROLE_TOKENS = {role.value: token for token, role in TOKENS.items()}
# A client's first request: initialize, as JSON-RPC over Streamable HTTP, which accepts both answer forms
# (https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle and .../basic/transports).
INITIALIZE_PARAMS = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE_PARAMS}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@dataclass
class Live:
    url: str
    fake: FakeLaunchpod
    tokens: dict[str, str] = field(default_factory=lambda: dict(ROLE_TOKENS))


def host_app(fake: FakeLaunchpod, api_url: str) -> Starlette:
    gateway = build_asgi_app(api_url, poll_first=0.05, poll_max=0.2)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with gateway.router.lifespan_context(gateway):
            yield

    return Starlette(routes=[*routes(fake), Route("/mcp", gateway)], lifespan=lifespan)


@contextlib.asynccontextmanager
async def mcp_session(
    url: str, token: str | None, *, told: list[str] | None = None, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An SDK client session over streamable HTTP to ``url``/mcp, sending ``token`` as the bearer; the
    methods of the notifications the server sends are appended to ``told``."""
    headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}

    async def on_message(message: object) -> None:
        if told is not None and isinstance(message, types.ServerNotification):
            told.append(message.root.method)

    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=60)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write, message_handler=on_message) as session,
    ):
        await session.initialize()
        yield session
