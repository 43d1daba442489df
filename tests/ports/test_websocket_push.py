"""WebSocketPush's contract: the in-memory fake (tests/fakes/websocket.py) and adapters.aws.websocket through
moto's API Gateway Management API, made by the sandbox's gateway to reach its live sockets
(sandbox.gateway.connections), answer alike: a message posted to a live connection arrives as its JSON and is
True; a connection that never connected, or has closed, is gone (410 GoneException): False, so the caller
forgets it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from launchpod.adapters.aws import websocket
from launchpod.runtime.wiring import WebSocketPush as Port
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.gateway.connections import Connection, connections, install_management_api_patch
from tests.fakes.websocket import Push
from tests.sandbox.aws.support import wait_until

ENDPOINT = "https://abc123defg.execute-api.us-east-1.amazonaws.com/prod"
CONNECTION = "L0SM9cOFvHcCIhw="
# The port; how a connection opens (its id; answers a reader of its next message); how it closes (its id).
Side = tuple[Port, Callable[[str], Callable[[], dict[str, Any]]], Callable[[str], None]]


@pytest.fixture(params=["fake", "gateway"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "fake":
        fake = Push(live=set())

        def open_fake(connection_id: str) -> Callable[[], dict[str, Any]]:
            fake.live.add(connection_id)  # type: ignore[union-attr]
            return lambda: fake.to(connection_id)[-1]

        yield fake, open_fake, fake.gone.add
        return
    request.getfixturevalue("aws")
    registry = connections()
    install_management_api_patch(registry)

    async def accept(socket: WebSocket) -> None:
        await socket.accept()
        connection_id = socket.path_params["connection_id"]
        registry.add(Connection(connection_id, socket, asyncio.get_running_loop(), "127.0.0.1", "pytest"))
        try:
            while True:
                await socket.receive_text()
        except WebSocketDisconnect:
            registry.remove(connection_id)

    stack = ExitStack()
    client = stack.enter_context(TestClient(Starlette(routes=[WebSocketRoute("/{connection_id}", accept)])))
    sockets: dict[str, Any] = {}

    def open_socket(connection_id: str) -> Callable[[], dict[str, Any]]:
        sockets[connection_id] = stack.enter_context(client.websocket_connect(f"/{connection_id}"))
        wait_until(lambda: connection_id in registry.ids(), reason=f"{connection_id} was not registered")
        return lambda: json.loads(sockets[connection_id].receive_text())

    def close(connection_id: str) -> None:
        sockets[connection_id].close()
        wait_until(lambda: connection_id not in registry.ids(), reason=f"{connection_id} stayed registered")

    yield websocket, open_socket, close
    stack.close()


def test_a_message_posted_to_a_live_connection_arrives(side: Side) -> None:
    port, open_connection, _ = side
    received = open_connection(CONNECTION)
    assert port.post(ENDPOINT, CONNECTION, {"type": "operation", "status": "RUNNING"}) is True
    assert received() == {"type": "operation", "status": "RUNNING"}


def test_a_connection_that_never_connected_is_gone(side: Side) -> None:
    assert side[0].post(ENDPOINT, "bm9ib2R5aGVyZQ==", {"type": "ping"}) is False


def test_a_closed_connection_is_gone(side: Side) -> None:
    port, open_connection, close = side
    open_connection(CONNECTION)
    close(CONNECTION)
    assert port.post(ENDPOINT, CONNECTION, {"type": "ping"}) is False
