"""API Gateway's WebSocket management API in memory: the WebSocketPush port (adapters.aws.websocket)."""

from __future__ import annotations

from typing import Any


class Push:
    """PostToConnection: a message posted to a live connection is delivered (True); a connection that is not
    live (never connected, or in ``gone``) answers 410 GoneException, which the port answers as False.
    ``posted`` is (connection id, message) of each delivery; ``live`` the connections that accept posts (None:
    every connection not in ``gone``)."""

    def __init__(self, live: set[str] | None = None) -> None:
        self.live = live
        self.posted: list[tuple[str, dict[str, Any]]] = []
        self.gone: set[str] = set()

    def post(self, endpoint: str, connection_id: str, message: dict[str, Any]) -> bool:
        if connection_id in self.gone or (self.live is not None and connection_id not in self.live):
            return False
        self.posted.append((connection_id, message))
        return True

    def to(self, connection_id: str) -> list[dict[str, Any]]:
        return [m for c, m in self.posted if c == connection_id]
