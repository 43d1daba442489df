"""Fixtures: the fake REST API and the gateway served together by uvicorn on a free port.

The host app mounts the gateway the way the sandbox does (a route at /mcp, the gateway's lifespan run
inside the host's), so these tests also check that the documented mounting works.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

import httpx
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_fake_rest import TOKENS, FakeLaunchpod, routes
from starlette.applications import Starlette
from starlette.routing import Route

from mcp_gateway.server import build_asgi_app

ROLE_TOKENS = {role.value: token for token, role in TOKENS.items()}


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


@pytest.fixture(scope="session")
def live() -> Iterator[Live]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    fake = FakeLaunchpod()
    server = uvicorn.Server(uvicorn.Config(host_app(fake, url), lifespan="on", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield Live(url, fake)
    server.should_exit = True
    thread.join(10)


@contextlib.asynccontextmanager
async def mcp_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """An SDK client session over streamable HTTP, sending ``token`` as the bearer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=60)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
