"""Fixtures: the fake REST API and the gateway served together by uvicorn on a free port."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import uvicorn

from tests.mcp_gateway.mcp_fake_rest import FakeLaunchpod
from tests.mcp_gateway.support import Live, host_app
from tests.sandbox.aws.support import wait_until


@pytest.fixture(scope="session")
def live() -> Iterator[Live]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    fake = FakeLaunchpod()
    server = uvicorn.Server(uvicorn.Config(host_app(fake, url), lifespan="on", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=10, reason="uvicorn did not start")
    yield Live(url, fake)
    server.should_exit = True
    thread.join(10)
