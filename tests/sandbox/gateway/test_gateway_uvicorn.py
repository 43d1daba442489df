"""The gateway behind a real uvicorn server, as `make sandbox` runs it, with a real WebSocket client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest
import uvicorn
import websockets
from moto import mock_aws

from sandbox.auth import SandboxTokens
from sandbox.gateway import build_gateway
from tests.sandbox.aws.support import wait_until


def _lambdas(name: str, event: dict[str, Any]) -> dict[str, Any]:
    if name == "launchpod-api":
        claims = (event["requestContext"].get("authorizer") or {}).get("claims") or {}
        return {"statusCode": 200, "body": json.dumps({"user": claims.get("cognito:username")})}
    if name == "launchpod-ws-message":
        return {"statusCode": 200, "body": json.dumps({"id": event["requestContext"]["connectionId"]})}
    return {"statusCode": 200}


@contextlib.contextmanager
def _serve(app: Any) -> Iterator[str]:
    """Run an ASGI app on uvicorn, on an ephemeral port, in a thread; yields host:port."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=10, reason="uvicorn did not start")
    try:
        yield f"127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(5)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, SandboxTokens]]:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    tokens = SandboxTokens.generate()
    with mock_aws(), _serve(build_gateway(lambda_invoke=_lambdas, tokens=tokens)) as address:
        yield address, tokens


def test_rest_and_websocket_over_real_sockets(served: tuple[str, SandboxTokens]) -> None:
    address, tokens = served
    answer = httpx.get(f"http://{address}/api/me", headers={"Authorization": f"Bearer {tokens.token_for('admin')}"})
    assert answer.json() == {"user": "admin"}

    async def session() -> tuple[str, str]:
        async with websockets.connect(f"ws://{address}/ws?token={tokens.token_for('viewer')}") as ws:
            await ws.send("who am i")
            connection_id = json.loads(await ws.recv())["id"]
            api = boto3.client(
                "apigatewaymanagementapi",
                region_name="us-east-1",
                endpoint_url="https://lpsandbox.execute-api.us-east-1.amazonaws.com/prod",
            )
            await asyncio.to_thread(api.post_to_connection, ConnectionId=connection_id, Data=b"pushed")
            return connection_id, str(await ws.recv())

    connection_id, pushed = asyncio.run(session())
    assert len(connection_id) == 16 and pushed == "pushed"


def test_websocket_without_token_fails_the_handshake(served: tuple[str, SandboxTokens]) -> None:
    address, _ = served

    async def attempt() -> None:
        async with websockets.connect(f"ws://{address}/ws"):
            pass

    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        asyncio.run(attempt())
    assert refused.value.response.status_code == 403


def test_fastmcp_streamable_http_app_is_reachable_at_mcp() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("probe")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    gateway = build_gateway(
        lambda_invoke=_lambdas, tokens=SandboxTokens.generate(), mcp_app=server.streamable_http_app()
    )

    async def call(address: str) -> str:
        async with (
            streamable_http_client(f"http://{address}/mcp") as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("add", {"a": 2, "b": 3})
            return str(result.content[0].text)  # type: ignore[union-attr]

    with _serve(gateway) as address:
        assert asyncio.run(call(address)) == "5"
