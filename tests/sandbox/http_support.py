"""One TLS context for every test's HTTP client. httpx builds a new one per client otherwise, loading certifi's CA
bundle (about 20 ms of CPU each), and the end-to-end tests make thousands of clients, many inside polling loops."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from tests.sandbox.aws.support import wait_until

TLS = httpx.create_ssl_context()


def next_step(refused: httpx.Response) -> str | None:
    """The call an error names as its fix (a detail for the CLI and agents; the message says it in words)."""
    return next((d["message"] for d in refused.json()["details"] if d["rule"] == "next_step"), None)


TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
SAFETY_NET = 5.0  # seconds between REST reads while the WebSocket is quiet


def wait_operation(
    url: str, viewer_token: str, operation_id: str, read: Callable[[], dict[str, Any]], timeout: float
) -> dict[str, Any]:
    """Wait for an operation to end as the console does: subscribed to its WebSocket topic
    (``operation:<id>``; a new subscriber gets the current view at once, then every change), reading the REST
    view (``read``) when a pushed view says it ended, and every few seconds while the socket is quiet, in case
    a push is lost. Polling the REST view ten times a second instead kept the sandbox busy answering while
    it worked towards the state waited for. Returns the last REST view: terminal, or whatever it is at
    ``timeout``."""
    deadline = time.monotonic() + timeout
    with _subscribed(url, viewer_token, f"operation:{operation_id}") as socket:
        while socket is not None:
            try:
                pushed = json.loads(socket.recv(timeout=max(0.1, min(SAFETY_NET, deadline - time.monotonic()))))
                ended = pushed.get("type") == "operation" and pushed["data"].get("status") in TERMINAL
                if not ended and time.monotonic() < deadline:
                    continue
            except TimeoutError:
                pass
            except ConnectionClosed:
                break
            view = read()
            if view["status"] in TERMINAL or time.monotonic() > deadline:
                return view
    # No WebSocket, or it closed: the REST view alone, through the suite's wait helper.
    try:
        return dict(
            wait_until(
                lambda: (view := read())["status"] in TERMINAL and view,
                timeout=max(0.1, deadline - time.monotonic()),
                reason=f"operation {operation_id} ended",
            )
        )
    except AssertionError:
        return read()  # still running at the timeout: the caller's assertion says so with the view


@contextlib.contextmanager
def _subscribed(url: str, token: str, topic: str) -> Iterator[ClientConnection | None]:
    """A WebSocket subscribed to ``topic``, or None when it cannot connect (then the wait reads the REST
    view five times a second)."""
    ws_url = url.replace("https://", "wss://", 1).replace("http://", "ws://", 1) + f"/ws?token={token}"
    try:
        socket = connect(ws_url, ssl=TLS if ws_url.startswith("wss://") else None, open_timeout=10)
    except (OSError, TimeoutError, InvalidHandshake):
        yield None
        return
    with socket:
        try:
            socket.send(json.dumps({"action": "subscribe", "topics": [topic]}))
        except ConnectionClosed:
            yield None
            return
        yield socket
