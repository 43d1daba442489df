"""Waiting for an operation the way a console does: subscribed to its WebSocket topic.

Polling the REST API every few milliseconds would measure the poller: each read of an operation costs
the single-process sandbox tens of milliseconds of the same CPU the workflow runs on. The push is
what a user watching the console sees; a read every two seconds covers a lost push.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from websockets.sync.client import connect

DONE = ("SUCCEEDED", "FAILED", "CANCELLED")


def subscribe(base_url: str, token: str, operation_id: str) -> Any:
    ws = connect(base_url.replace("http://", "ws://") + f"/ws?token={token}")
    ws.send(json.dumps({"action": "subscribe", "topics": [f"operation:{operation_id}"]}))
    return ws


def wait_for(ws: Any, client: httpx.Client, operation_id: str, timeout: float = 3600) -> dict[str, Any]:
    """The operation's view once it has ended, and the moment (time.monotonic) the end was seen."""
    deadline = time.monotonic() + timeout
    with ws:
        while time.monotonic() < deadline:
            try:
                message = json.loads(ws.recv(timeout=2))
            except TimeoutError:
                view = client.get(f"/api/operations/{operation_id}").json()
                if view["status"] in DONE:
                    return view
                continue
            if message.get("type") == "operation" and message["data"]["status"] in DONE:
                return dict(message["data"])
    raise TimeoutError(f"operation {operation_id} did not end within {timeout} s")
