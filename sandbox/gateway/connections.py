"""Live WebSocket connections, and moto's API Gateway Management API made to reach them.

``post_to_connection``, ``delete_connection`` and ``get_connection`` from any Lambda handler reach the
gateway's live socket, or raise ``GoneException`` (410) for an unknown connection (API Gateway developer
guide, "Use @connections commands in your backend service").
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
import threading
import time
import urllib.parse
from typing import Any

from moto.core.exceptions import JsonRESTError
from starlette.websockets import WebSocket, WebSocketState

from sandbox.state import STATE


class GoneException(JsonRESTError):
    """API Gateway's answer for a connection that does not exist (any more)."""

    code = 410

    def __init__(self, connection_id: str) -> None:
        super().__init__("GoneException", f"Connection {connection_id} is gone")


class Connection:
    """One accepted socket, written to from the server loop by any thread through the registry."""

    def __init__(
        self,
        connection_id: str,
        websocket: WebSocket,
        loop: asyncio.AbstractEventLoop,
        source_ip: str,
        user_agent: str,
    ) -> None:
        self.connection_id = connection_id
        self.websocket = websocket
        self.loop = loop
        self.source_ip = source_ip
        self.user_agent = user_agent
        self.connected_at = time.time()
        self.last_active_at = self.connected_at
        self.closed = False
        self.send_lock = asyncio.Lock()  # frames from several handler threads must not interleave

    async def send(self, data: bytes) -> None:
        async with self.send_lock:
            if self.closed or self.websocket.client_state != WebSocketState.CONNECTED:
                raise ConnectionError("closed")
            try:
                await self.websocket.send_text(data.decode("utf-8"))
            except UnicodeDecodeError:
                await self.websocket.send_bytes(data)
            self.last_active_at = time.time()

    async def close(self) -> None:
        if not self.closed and self.websocket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await self.websocket.close(1000)
        self.closed = True


class ConnectionRegistry:
    """Live WebSocket connections by connection id; every method is safe to call from any thread."""

    def __init__(self) -> None:
        self._connections: dict[str, Connection] = {}
        self._lock = threading.Lock()

    def add(self, connection: Connection) -> None:
        with self._lock:
            self._connections[connection.connection_id] = connection

    def remove(self, connection_id: str) -> None:
        with self._lock:
            self._connections.pop(connection_id, None)

    def get(self, connection_id: str) -> Connection:
        with self._lock:
            connection = self._connections.get(connection_id)
        if connection is None or connection.closed or connection.loop.is_closed():
            raise GoneException(connection_id)
        return connection

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._connections)

    def _run(self, connection: Connection, coro: Any, timeout: float) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is connection.loop:
            # Called on the server loop itself: blocking here would deadlock, so fire and forget.
            connection.loop.create_task(coro)
            return
        future = asyncio.run_coroutine_threadsafe(coro, connection.loop)
        try:
            future.result(timeout)
        except Exception as exc:
            raise GoneException(connection.connection_id) from exc

    def post(self, connection_id: str, data: bytes | str, timeout: float = 10.0) -> None:
        """Send one frame (text if UTF-8, else binary); GoneException if the connection is not live."""
        connection = self.get(connection_id)
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        self._run(connection, connection.send(payload), timeout)

    def close(self, connection_id: str, timeout: float = 10.0) -> None:
        """Close a connection as DeleteConnection does ($disconnect follows); GoneException if unknown."""
        connection = self.get(connection_id)
        self._run(connection, connection.close(), timeout)

    def describe(self, connection_id: str) -> dict[str, Any]:
        """GetConnection's answer for a live connection."""
        connection = self.get(connection_id)
        return {
            "connectedAt": connection.connected_at,
            "lastActiveAt": connection.last_active_at,
            "identity": {"sourceIp": connection.source_ip, "userAgent": connection.user_agent},
        }


def connections() -> ConnectionRegistry:
    """The process's live connections: one registry, as moto's management API backend is process-global."""
    return STATE.part(ConnectionRegistry)


class _ConnectionView:
    """What moto's get_connection response serializer expects (``to_dict``)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return self._data


def _connection_id(raw: str) -> str:
    # botocore percent-encodes the "=" that ends AWS-style connection ids.
    return urllib.parse.unquote(raw)


def install_management_api_patch(registry: ConnectionRegistry) -> None:
    """Make moto's API Gateway Management API talk to the gateway's live sockets (idempotent)."""
    from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend as Backend

    def post_to_connection(self: Any, data: bytes, connection_id: str) -> None:
        registry.post(_connection_id(connection_id), data)

    def delete_connection(self: Any, connection_id: str) -> None:
        registry.close(_connection_id(connection_id))

    def get_connection(self: Any, connection_id: str) -> _ConnectionView:
        return _ConnectionView(registry.describe(_connection_id(connection_id)))

    Backend.post_to_connection = post_to_connection  # type: ignore[method-assign]
    Backend.delete_connection = delete_connection  # type: ignore[method-assign]
    Backend.get_connection = get_connection  # type: ignore[method-assign,assignment]


def new_connection_id() -> str:
    """A connection id shaped like API Gateway's (16 base64 characters, e.g. ``L0SM9cOFvHcCIhw=``).

    The URL-safe alphabet keeps ``/`` and ``+`` out of the management API's URL path.
    """
    return base64.urlsafe_b64encode(secrets.token_bytes(11)).decode("ascii")
