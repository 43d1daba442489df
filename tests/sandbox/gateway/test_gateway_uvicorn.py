"""The gateway behind a real uvicorn server, as `make sandbox` runs it, with a real WebSocket client."""

from __future__ import annotations

import asyncio
import json
import threading
import time
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


def _lambdas(name: str, event: dict[str, Any]) -> dict[str, Any]:
    if name == "launchpod-api":
        claims = (event["requestContext"].get("authorizer") or {}).get("claims") or {}
        return {"statusCode": 200, "body": json.dumps({"user": claims.get("cognito:username")})}
    if name == "launchpod-ws-message":
        return {"statusCode": 200, "body": json.dumps({"id": event["requestContext"]["connectionId"]})}
    return {"statusCode": 200}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, SandboxTokens]]:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    tokens = SandboxTokens.generate()
    config = uvicorn.Config(build_gateway(lambda_invoke=_lambdas, tokens=tokens), host="127.0.0.1", port=0,
                            log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    with mock_aws():
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"127.0.0.1:{port}", tokens
        server.should_exit = True
        thread.join(5)


def test_rest_and_websocket_over_real_sockets(served: tuple[str, SandboxTokens]) -> None:
    address, tokens = served
    answer = httpx.get(f"http://{address}/api/me", headers={"Authorization": f"Bearer {tokens.token_for('admin')}"})
    assert answer.json() == {"user": "admin"}

    async def session() -> tuple[str, str]:
        async with websockets.connect(f"ws://{address}/ws?token={tokens.token_for('viewer')}") as ws:
            await ws.send("who am i")
            connection_id = json.loads(await ws.recv())["id"]
            api = boto3.client("apigatewaymanagementapi", region_name="us-east-1",
                               endpoint_url="https://lpsandbox.execute-api.us-east-1.amazonaws.com/prod")
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
