"""Fixtures: the fake REST API and the gateway served together by uvicorn on a free port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from tests.mcp_gateway.mcp_fake_rest import FakeLaunchpod
from tests.mcp_gateway.support import Live, host_app


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
