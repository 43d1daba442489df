"""``/ws``: an API Gateway WebSocket API whose ``$connect``, ``$default`` and ``$disconnect`` routes
invoke their Lambdas ("Working with routes for WebSocket APIs", "Setting up a WebSocket API
integration request in API Gateway"); each frame is its own invocation, as on AWS.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.auth import SandboxTokens
from sandbox.gateway.connections import Connection, ConnectionRegistry, new_connection_id
from sandbox.gateway.proxy import Invoker, lambda_error, multi, request_time, short_id, token_from
from sandbox.gateway.rest import Stage

log = logging.getLogger("sandbox.gateway")

WS_CONNECT_FUNCTION = "launchpod-ws-connect"
WS_MESSAGE_FUNCTION = "launchpod-ws-message"
WS_DISCONNECT_FUNCTION = "launchpod-ws-disconnect"
# Close code for a refused WebSocket after accept (4000-4999 are application codes; 4401 mirrors 401).
WS_UNAUTHORIZED = 4401


@dataclass
class _Session:
    """What every event of one connection repeats."""

    websocket: WebSocket
    connection_id: str
    connected_at: float
    authorizer: dict[str, Any]
    headers: dict[str, str] | None
    multi_headers: dict[str, list[str]] | None
    # frames still being handled: held here so that none is collected before it ends
    pending: set[asyncio.Task[None]] = field(default_factory=set)


class WebSocketApi:
    """The ``/ws`` endpoint: authorize, ``$connect``, a ``$default`` invocation per frame, ``$disconnect``."""

    def __init__(self, invoke: Invoker, tokens: SandboxTokens, stage: Stage, registry: ConnectionRegistry) -> None:
        self._invoke, self._tokens, self._stage, self._registry = invoke, tokens, stage, registry

    async def serve(self, websocket: WebSocket) -> None:
        session = await self._connect(websocket)
        if session is None:
            return
        await websocket.accept()
        source_ip = websocket.client.host if websocket.client else "127.0.0.1"
        connection = Connection(
            session.connection_id,
            websocket,
            asyncio.get_running_loop(),
            source_ip,
            websocket.headers.get("user-agent", ""),
        )
        self._registry.add(connection)
        close_code = 1005
        try:
            close_code = await self._receive(session, connection)
        except WebSocketDisconnect as exc:
            close_code = exc.code
        finally:
            connection.closed = True
            self._registry.remove(session.connection_id)
            await self._disconnect(session, close_code)

    async def _connect(self, websocket: WebSocket) -> _Session | None:
        """Authorize and run ``$connect``; None (the socket closed) when either refuses."""
        token = websocket.query_params.get("token") or token_from(websocket.headers.get("authorization"))
        claims = self._tokens.claims_for(token)
        if claims is None:
            await websocket.close(code=WS_UNAUTHORIZED)  # before accept: the handshake gets HTTP 403
            return None
        # A Lambda authorizer's context is flat; the claims are repeated whole for handlers that want them.
        authorizer = {
            "principalId": claims["cognito:username"],
            "role": claims["cognito:groups"],
            "sub": claims["sub"],
            "cognito:username": claims["cognito:username"],
            "cognito:groups": claims["cognito:groups"],
            "email": claims.get("email"),
            "claims": claims,
            "integrationLatency": 0,
        }
        headers, multi_headers = multi([*websocket.headers.items(), ("host", self._stage.domain_name)])
        session = _Session(websocket, new_connection_id(), time.time(), authorizer, headers, multi_headers)
        query, multi_query = multi(list(websocket.query_params.multi_items()))
        connect_event = {
            "headers": headers,
            "multiValueHeaders": multi_headers,
            "queryStringParameters": query,
            "multiValueQueryStringParameters": multi_query,
            "requestContext": self._context(session, "$connect", "CONNECT"),
            "isBase64Encoded": False,
        }
        try:
            result = await self._invoke(WS_CONNECT_FUNCTION, connect_event)
        except Exception:
            log.exception("Lambda %s failed", WS_CONNECT_FUNCTION)
            result = None
        if lambda_error(result) is not None or int(result["statusCode"]) >= 400:
            await websocket.close(code=WS_UNAUTHORIZED)
            return None
        return session

    async def _receive(self, session: _Session, connection: Connection) -> int:
        """Invoke ``$default`` for each frame until the client closes; the close code."""
        while True:
            message = await session.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return int(message.get("code") or 1005)
            connection.last_active_at = time.time()
            if message.get("text") is not None:
                body, is_base64 = message["text"], False
            else:
                body, is_base64 = base64.b64encode(message.get("bytes") or b"").decode("ascii"), True
            # Each frame is its own invocation, as on AWS: a long handler does not block the next frame.
            task = asyncio.create_task(self._message(session, connection, body, is_base64))
            session.pending.add(task)
            task.add_done_callback(session.pending.discard)

    async def _message(self, session: _Session, connection: Connection, body: str, is_base64: bool) -> None:
        context = self._context(session, "$default", "MESSAGE")
        context["messageId"] = short_id()
        event = {"requestContext": context, "body": body, "isBase64Encoded": is_base64}
        try:
            reply = await self._invoke(WS_MESSAGE_FUNCTION, event)
        except Exception:
            log.exception("Lambda %s failed", WS_MESSAGE_FUNCTION)
            reply = {"errorType": "Error"}
        raw = _reply_frame(reply, session.connection_id, context["requestId"])
        if raw is not None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await connection.send(raw)

    async def _disconnect(self, session: _Session, close_code: int) -> None:
        context = self._context(session, "$disconnect", "DISCONNECT")
        context["disconnectStatusCode"] = close_code
        context["disconnectReason"] = f"Client-side close frame status code '{close_code}'"
        disconnect_event = {
            "headers": session.headers,
            "multiValueHeaders": session.multi_headers,
            "requestContext": context,
            "isBase64Encoded": False,
        }
        try:
            await self._invoke(WS_DISCONNECT_FUNCTION, disconnect_event)
        except Exception:
            log.exception("Lambda %s failed", WS_DISCONNECT_FUNCTION)

    def _context(self, session: _Session, route_key: str, event_type: str) -> dict[str, Any]:
        now, websocket = time.time(), session.websocket
        return {
            "routeKey": route_key,
            "eventType": event_type,
            "extendedRequestId": short_id(),
            "requestTime": request_time(now),
            "messageDirection": "IN",
            "stage": self._stage.stage,
            "connectedAt": int(session.connected_at * 1000),
            "requestTimeEpoch": int(now * 1000),
            "identity": {
                "sourceIp": websocket.client.host if websocket.client else "127.0.0.1",
                "userAgent": websocket.headers.get("user-agent"),
            },
            "requestId": str(uuid.uuid4()),
            "domainName": self._stage.domain_name,
            "connectionId": session.connection_id,
            "apiId": self._stage.api_id,
            "authorizer": session.authorizer,
        }


def _reply_frame(reply: Any, connection_id: str, request_id: str) -> bytes | None:
    """The frame a route's answer sends back to the client, if any."""
    if isinstance(reply, dict) and ("errorType" in reply or "errorMessage" in reply):
        # What API Gateway itself sends back when the route's integration fails.
        error = {"message": "Internal server error", "connectionId": connection_id, "requestId": request_id}
        return json.dumps(error).encode("utf-8")
    if isinstance(reply, dict) and reply.get("body"):
        out = reply["body"]
        if reply.get("isBase64Encoded"):
            return base64.b64decode(out)
        return (out if isinstance(out, str) else json.dumps(out)).encode("utf-8")
    return None
