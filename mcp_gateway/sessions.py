"""Sessions for the stateless gateway (Lambda): the toolsets each MCP session enabled, kept in a store.

A Lambda keeps nothing between requests, so a session's enabled toolsets live in a ``SessionStore`` keyed by the
MCP session id. The streamable HTTP transport's session management
(https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management): the server
assigns ``Mcp-Session-Id`` in its answer to ``initialize``; the client sends it with every later request; a
session the server no longer knows answers 404, and the client starts a new one with ``initialize``; the client
ends one with DELETE. ``StoredSessionManager`` serves each request on a fresh transport, as the SDK's stateless
mode does, but gives it the request's session id. Within a session the answers are server-sent events, so
``notifications/tools/list_changed`` reaches the client in the answer to the call that enabled a toolset (JSON
answers carry only the response); on Lambda the events arrive buffered, with the response. No session can push
between requests, so a GET for a standalone stream answers 405, as the spec allows.

A request without a session id (a client that skipped ``initialize``) is served as before: JSON, every tool.

Session ids are random 128-bit values; the store holds only which toolsets are listed, never a token, so a
guessed id could change another session's list, not what its calls may do (each call carries its own token).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol
from uuid import uuid4

import anyio
from anyio.abc import TaskStatus
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

# Where the manager leaves a known session's id and stored toolsets for the server (in the request's scope state).
SESSION = "launchpod.mcp.session"
DEFAULT_TTL_SECONDS = 12 * 3600


class SessionStore(Protocol):
    """The toolsets each session enabled. ``toolsets`` is None for a session the store does not know."""

    async def open(self, session_id: str) -> None: ...

    async def toolsets(self, session_id: str) -> frozenset[str] | None: ...

    async def add(self, session_id: str, toolsets: frozenset[str]) -> None: ...

    async def close(self, session_id: str) -> None: ...


class MemorySessionStore:
    """In one process (tests, a single instance)."""

    def __init__(self) -> None:
        self.sessions: dict[str, frozenset[str]] = {}

    async def open(self, session_id: str) -> None:
        self.sessions[session_id] = frozenset()

    async def toolsets(self, session_id: str) -> frozenset[str] | None:
        return self.sessions.get(session_id)

    async def add(self, session_id: str, toolsets: frozenset[str]) -> None:
        if session_id in self.sessions:
            self.sessions[session_id] |= toolsets

    async def close(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)


class DynamoSessionStore:
    """A DynamoDB table: partition key ``sessionId``, the enabled toolsets as a string set ``toolsets``, and
    ``expiresAt`` (epoch seconds) as its TTL attribute, pushed forward while the session is in use.

    TTL deletes expired items within days, not at once, and until then reads still return them
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/howitworks-ttl.html), so a read checks
    ``expiresAt`` itself. Reads are strongly consistent: a tools/list right after enable_toolsets must see it.
    ``ADD`` on a string set is a union done by DynamoDB, so two requests enabling toolsets at once lose neither
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html#Expressions.UpdateExpressions.ADD).
    """

    def __init__(self, table: str, *, client: Any = None, ttl_seconds: int = DEFAULT_TTL_SECONDS) -> None:
        if client is None:
            import boto3  # the gateway needs boto3 only when it keeps sessions in DynamoDB
            from botocore.config import Config

            client = boto3.client("dynamodb", config=Config(retries={"mode": "standard"}, connect_timeout=3))
        self.table = table
        self.client = client
        self.ttl = ttl_seconds

    def _expiry(self) -> dict[str, str]:
        return {"N": str(int(time.time()) + self.ttl)}

    async def open(self, session_id: str) -> None:
        item = {"sessionId": {"S": session_id}, "expiresAt": self._expiry()}
        await anyio.to_thread.run_sync(lambda: self.client.put_item(TableName=self.table, Item=item))

    async def toolsets(self, session_id: str) -> frozenset[str] | None:
        key = {"sessionId": {"S": session_id}}
        found = await anyio.to_thread.run_sync(
            lambda: self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True)
        )
        item = found.get("Item")
        now = int(time.time())
        if item is None or int(item["expiresAt"]["N"]) <= now:
            return None
        if int(item["expiresAt"]["N"]) - now < self.ttl // 2:
            await self._update(session_id, "SET expiresAt = :e", {":e": self._expiry()})
        return frozenset(item.get("toolsets", {}).get("SS", ()))

    async def add(self, session_id: str, toolsets: frozenset[str]) -> None:
        values = {":t": {"SS": sorted(toolsets)}, ":e": self._expiry()}
        await self._update(session_id, "ADD toolsets :t SET expiresAt = :e", values)

    async def close(self, session_id: str) -> None:
        key = {"sessionId": {"S": session_id}}
        await anyio.to_thread.run_sync(lambda: self.client.delete_item(TableName=self.table, Key=key))

    async def _update(self, session_id: str, expression: str, values: dict[str, Any]) -> None:
        def update() -> None:
            with contextlib.suppress(self.client.exceptions.ConditionalCheckFailedException):
                self.client.update_item(
                    TableName=self.table,
                    Key={"sessionId": {"S": session_id}},
                    UpdateExpression=expression,
                    ExpressionAttributeValues=values,
                    ConditionExpression="attribute_exists(sessionId)",  # never revive a session DELETE ended
                )

        await anyio.to_thread.run_sync(update)


def _refuse(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    body = JSONRPCError(jsonrpc="2.0", id="server-error", error=ErrorData(code=INVALID_REQUEST, message=message))
    return Response(body.model_dump_json(by_alias=True, exclude_none=True), status, headers, "application/json")


def _is_initialize(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


class StoredSessionManager:
    """Serves each MCP request on a fresh transport (any instance answers any request) with sessions kept in
    ``store``. Has the SDK session manager's ``run`` and ``handle_request``."""

    def __init__(self, server: Server[Any, Any], store: SessionStore, *, json_response: bool = False) -> None:
        self.server = server
        self.store = store
        self.json_response = json_response
        self._tasks: anyio.abc.TaskGroup | None = None
        self.handle_request = RequestBodyLimitMiddleware(self._handle, DEFAULT_MAX_REQUEST_BODY_SIZE)

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
                self._tasks = None

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        method = scope["method"]
        if session_id is None and method == "POST":
            body, receive = await _read_body(receive)
            if _is_initialize(body):
                session_id = uuid4().hex
                await self.store.open(session_id)
        elif session_id is not None:
            stored = await self.store.toolsets(session_id)
            if stored is None:
                await _refuse("Session not found: start a new one with initialize", 404)(scope, receive, send)
                return
            if method == "GET":
                # nothing can reach a client between its requests: no standalone stream (the spec allows 405)
                await _refuse("This gateway offers no standalone stream", 405, {"Allow": "POST, DELETE"})(
                    scope, receive, send
                )
                return
            if method == "DELETE":
                await self.store.close(session_id)
            scope.setdefault("state", {})[SESSION] = (session_id, stored)
        transport = StreamableHTTPServerTransport(
            mcp_session_id=session_id,
            # a session's answers are events, so its notifications (tools/list_changed) reach the client
            is_json_response_enabled=self.json_response and session_id is None,
            event_store=None,
        )
        await self._serve(transport, scope, receive, send)

    async def _serve(
        self, transport: StreamableHTTPServerTransport, scope: Scope, receive: Receive, send: Send
    ) -> None:
        server = self.server

        async def run_server(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with transport.connect() as (read, write):
                task_status.started()
                # stateless: the session is initialized already, as every request of it may reach a new instance
                await server.run(read, write, server.create_initialization_options(), stateless=True)

        if self._tasks is None:
            raise RuntimeError("StoredSessionManager.run() is not running")
        try:
            await self._tasks.start(run_server)
            await transport.handle_request(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await transport.terminate()


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a ``receive`` that hands it over again to whoever reads the request next."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay
