"""Publishing to a topic: every subscribed connection gets the message; gone connections are forgotten."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws import websocket
from launchpod.contracts.streaming import StreamEvent, StreamEventType
from launchpod.runtime import wiring


def publish(topic: str, kind: StreamEventType, data: dict[str, Any]) -> tuple[int, int]:
    """Returns (pushed, gone)."""
    connections = wiring.connections()
    message = StreamEvent(topic=topic, type=kind, data=data).model_dump(mode="json")
    pushed = gone = 0
    for conn, endpoint in connections.subscribers(topic):
        if websocket.post(endpoint, conn, message):
            pushed += 1
        else:
            gone += 1
            connections.disconnect(conn)
    return pushed, gone
