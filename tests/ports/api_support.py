"""The AWS side of a contract test whose adapter calls an HTTP API the sandbox serves (SageMaker's MLflow, AMP's
queries): the sandbox's routes on uvicorn on a local port, for one test, with Launchpod's setting for that
API's endpoint pointing there."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Sequence

import pytest
import uvicorn
from launchpod.runtime.settings import settings
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from tests.sandbox.aws.support import wait_until


@contextlib.contextmanager
def served(routes: Sequence[BaseRoute], monkeypatch: pytest.MonkeyPatch, variable: str, path: str) -> Iterator[None]:
    """Serve ``routes`` on a free local port and set ``variable`` to that server's ``path``; stopped, and the
    settings read again, when the test ends."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=list(routes)), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, reason=f"the API for {variable} did not start")
    monkeypatch.setenv(variable, f"http://127.0.0.1:{sock.getsockname()[1]}{path}")
    settings.cache_clear()
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        settings.cache_clear()
