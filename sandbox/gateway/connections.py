"""The sandbox front door: one ASGI app playing API Gateway (REST + WebSocket), MCP and the static site.

``build_gateway`` returns a Starlette app that uvicorn serves on 127.0.0.1:3099. ``/api/*`` becomes
an API Gateway REST v1 proxy event for the ``launchpod-api`` Lambda, with a Cognito-authorizer-like
check of the sandbox bearer tokens. ``/ws`` is an API Gateway WebSocket API: ``$connect``,
``$default`` and ``$disconnect`` go to their Lambdas, and moto's API Gateway Management API is
patched so ``post_to_connection`` from any Lambda handler (running in-process under ``mock_aws``)
reaches the live socket, or raises ``GoneException`` (410) for an unknown connection. ``/mcp`` is
the mounted MCP app, and everything else is the
web UI with single-page-app fallback. Lambda failures never leak a stack trace to the client.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import json
import logging
import mimetypes
import secrets
import threading
import time
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from moto.core.exceptions import JsonRESTError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute, request_response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from sandbox.auth import SandboxTokens

log = logging.getLogger("sandbox.gateway")

LambdaInvoke = Callable[[str, dict[str, Any]], dict[str, Any]]

REST_FUNCTION = "launchpod-api"
WS_CONNECT_FUNCTION = "launchpod-ws-connect"
WS_MESSAGE_FUNCTION = "launchpod-ws-message"
WS_DISCONNECT_FUNCTION = "launchpod-ws-disconnect"

ACCOUNT_ID = "123456789012"
REST_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
INVALID_TOKEN_MESSAGE = "The token is not valid. Use one printed by `make sandbox`."
# Routes deployed without an authorizer (cdk/launchpod_cdk/api.py PUBLIC_PATHS): API Gateway does not
# look at their Authorization header at all, so a stale token does not stop a health check.
PUBLIC_REST_PATHS = frozenset({"/api/health", "/api/openapi.json", "/api/docs"})

# Close code for a refused WebSocket after accept (4000-4999 are application codes; 4401 mirrors 401).
WS_UNAUTHORIZED = 4401
# Headers the gateway computes itself; a Lambda's values for them would corrupt the framing.
_HOP_BY_HOP = {"content-length", "transfer-encoding", "connection", "keep-alive"}


# ====================================================================== errors and events
def error_envelope(
    status: int, code: str, message: str, request_id: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The project's one error shape, {code, message, details[], requestId}, from the gateway itself."""
    return JSONResponse(
        {"code": code, "message": message, "details": [], "requestId": request_id},
        status_code=status,
        headers={"x-amzn-RequestId": request_id, **(headers or {})},
    )


def _lambda_error(result: Any) -> str | None:
    """Why a Lambda proxy result is unusable, or None if it is a proper proxy response."""
    if not isinstance(result, dict):
        return "the function returned no proxy response"
    if "errorMessage" in result or "errorType" in result:
        return f"the function failed: {result.get('errorType', 'Error')}"
    if "statusCode" not in result:
        return "Malformed Lambda proxy response"
    try:
        int(result["statusCode"])
    except (TypeError, ValueError):
        return "Malformed Lambda proxy response"
    return None


def _request_time(now: float) -> str:
    # API Gateway's format: 30/Nov/2026:21:30:00 +0000
    return datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")


def _multi(items: list[tuple[str, str]]) -> tuple[dict[str, str] | None, dict[str, list[str]] | None]:
    # API Gateway sends null, not {}, when there are no values; single-value maps keep the last value.
    if not items:
        return None, None
    multi: dict[str, list[str]] = {}
    for key, value in items:
        multi.setdefault(key, []).append(value)
    return {k: v[-1] for k, v in multi.items()}, multi


def _body_of(raw: bytes) -> tuple[str | None, bool]:
    if not raw:
        return None, False
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii"), True


def _identity(source_ip: str, user_agent: str | None) -> dict[str, Any]:
    return {
        "cognitoIdentityPoolId": None,
        "accountId": None,
        "cognitoIdentityId": None,
        "caller": None,
        "sourceIp": source_ip,
        "principalOrgId": None,
        "accessKey": None,
        "cognitoAuthenticationType": None,
        "cognitoAuthenticationProvider": None,
        "userArn": None,
        "userAgent": user_agent,
        "user": None,
    }


def _token_from(authorization: str | None) -> str | None:
    """A Cognito authorizer takes the raw header value; accept it with or without a Bearer scheme."""
    if not authorization:
        return None
    value = authorization.strip()
    if value[:7].lower() == "bearer ":
        value = value[7:].strip()
    return value or None


# ====================================================================== WebSocket connections
class GoneException(JsonRESTError):
    """API Gateway's answer for a connection that does not exist (any more)."""

    code = 410

    def __init__(self, connection_id: str) -> None:
        super().__init__("GoneException", f"Connection {connection_id} is gone")


class _Connection:
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
        self._connections: dict[str, _Connection] = {}
        self._lock = threading.Lock()

    def add(self, connection: _Connection) -> None:
        with self._lock:
            self._connections[connection.connection_id] = connection

    def remove(self, connection_id: str) -> None:
        with self._lock:
            self._connections.pop(connection_id, None)

    def get(self, connection_id: str) -> _Connection:
        with self._lock:
            connection = self._connections.get(connection_id)
        if connection is None or connection.closed or connection.loop.is_closed():
            raise GoneException(connection_id)
        return connection

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._connections)

    def _run(self, connection: _Connection, coro: Any, timeout: float) -> None:
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


# One registry per process: moto's management API backend is process-global too.
CONNECTIONS = ConnectionRegistry()


class _ConnectionView:
    """What moto's get_connection response serializer expects (``to_dict``)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return self._data


def _connection_id(raw: str) -> str:
    # botocore percent-encodes the "=" that ends AWS-style connection ids.
    return urllib.parse.unquote(raw)


def install_management_api_patch(registry: ConnectionRegistry = CONNECTIONS) -> None:
    """Make moto's API Gateway Management API talk to the gateway's live sockets (idempotent)."""
    from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend as Backend

    def post_to_connection(self: Any, data: bytes, connection_id: str) -> None:
        registry.post(_connection_id(connection_id), data)

    def delete_connection(self: Any, connection_id: str) -> None:
        registry.close(_connection_id(connection_id))

    def get_connection(self: Any, connection_id: str) -> _ConnectionView:
        return _ConnectionView(registry.describe(_connection_id(connection_id)))

    Backend.post_to_connection = post_to_connection  # type: ignore[method-assign,assignment]
    Backend.delete_connection = delete_connection  # type: ignore[method-assign,assignment]
    Backend.get_connection = get_connection  # type: ignore[method-assign,assignment]


def new_connection_id() -> str:
    """A connection id shaped like API Gateway's (16 base64 characters, e.g. ``L0SM9cOFvHcCIhw=``).

    The URL-safe alphabet keeps ``/`` and ``+`` out of the management API's URL path.
    """
    return base64.urlsafe_b64encode(secrets.token_bytes(11)).decode("ascii")


# ====================================================================== the app
def build_gateway(
    *,
    lambda_invoke: LambdaInvoke,
    tokens: SandboxTokens,
    mcp_app: ASGIApp | None = None,
    web_dir: str | Path | None = None,
    api_id: str = "lpsandbox",
    stage: str = "prod",
    region: str = "us-east-1",
    mcp_strip_prefix: bool = False,
) -> Starlette:
    """Build the sandbox gateway (see the module docstring).

    ``lambda_invoke(function_name, event) -> dict`` runs a Lambda synchronously; it is called on a
    worker thread and may raise or return a Lambda error payload (``errorMessage``/``errorType``).
    ``mcp_app`` receives every request under ``/mcp``: with ``mcp_strip_prefix=False`` (default) the
    path is passed unchanged (``/mcp``, ``/mcp/...``), which suits an MCP app that serves its own
    ``/mcp`` endpoint (FastMCP's ``streamable_http_app()``); with True it is mounted like
    ``Mount("/mcp", mcp_app)`` (path stripped, ``root_path="/mcp"``). A Starlette ``mcp_app``'s
    lifespan runs inside the gateway's. ``web_dir`` is checked per request, so
    a web build that appears later is picked up without a restart.
    """
    domain_name = f"{api_id}.execute-api.{region}.amazonaws.com"
    install_management_api_patch(CONNECTIONS)

    async def invoke(function_name: str, event: dict[str, Any]) -> Any:
        # A worker thread: handlers call post_to_connection, which needs this loop free.
        return await run_in_threadpool(lambda_invoke, function_name, event)

    # ------------------------------------------------------------------ REST
    async def rest(request: Request) -> Response:
        request_id = str(uuid.uuid4())
        method = request.method.upper()
        if method not in REST_METHODS:
            return error_envelope(
                405,
                "METHOD_NOT_ALLOWED",
                f"Method {method} is not supported.",
                request_id,
                headers={"Allow": ", ".join(REST_METHODS)},
            )
        claims = None
        authorization = request.headers.get("authorization")
        if authorization is not None and request.url.path not in PUBLIC_REST_PATHS:
            claims = tokens.claims_for(_token_from(authorization))
            if claims is None:
                return error_envelope(401, "UNAUTHORIZED", INVALID_TOKEN_MESSAGE, request_id)
        event = await _rest_event(request, request_id, claims)
        try:
            result = await invoke(REST_FUNCTION, event)
        except Exception:
            log.exception("Lambda %s failed for %s %s", REST_FUNCTION, method, request.url.path)
            return error_envelope(502, "INTERNAL", "The API function failed; see the sandbox log.", request_id)
        problem = _lambda_error(result)
        if problem is not None:
            log.error(
                "Lambda %s gave an unusable response for %s %s: %s %r",
                REST_FUNCTION,
                method,
                request.url.path,
                problem,
                result if isinstance(result, dict) else type(result),
            )
            return error_envelope(
                502, "INTERNAL", f"The API function failed ({problem}); see the sandbox log.", request_id
            )
        return _rest_response(result, request_id, head=method == "HEAD")

    async def _rest_event(request: Request, request_id: str, claims: dict[str, Any] | None) -> dict[str, Any]:
        now = time.time()
        path = request.url.path
        raw_query = urllib.parse.parse_qsl(request.url.query, keep_blank_values=True)
        query, multi_query = _multi(raw_query)
        header_items = [(k, v) for k, v in request.headers.items() if k != "host"]
        header_items += [("host", domain_name), ("x-forwarded-proto", "https"), ("x-forwarded-port", "443")]
        client_ip = request.client.host if request.client else "127.0.0.1"
        header_items.append(("x-forwarded-for", client_ip))
        headers, multi_headers = _multi(header_items)
        body, is_base64 = _body_of(await request.body())
        proxy = path.removeprefix("/api").lstrip("/")
        # HEAD is answered by the GET route without a body, as API Gateway integrations commonly are.
        method = "GET" if request.method.upper() == "HEAD" else request.method.upper()
        context: dict[str, Any] = {
            "resourceId": "proxy",
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "extendedRequestId": base64.b64encode(secrets.token_bytes(6)).decode("ascii"),
            "requestTime": _request_time(now),
            "path": f"/{stage}{path}",
            "accountId": ACCOUNT_ID,
            "protocol": f"HTTP/{request.scope.get('http_version', '1.1')}",
            "stage": stage,
            "domainPrefix": api_id,
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": _identity(client_ip, request.headers.get("user-agent")),
            "domainName": domain_name,
            "apiId": api_id,
        }
        if claims is not None:
            context["authorizer"] = {"claims": claims}
        return {
            "resource": "/{proxy+}",
            "path": path,
            "httpMethod": method,
            "headers": headers,
            "multiValueHeaders": multi_headers,
            "queryStringParameters": query,
            "multiValueQueryStringParameters": multi_query,
            "pathParameters": {"proxy": proxy} if proxy else None,
            "stageVariables": None,
            "requestContext": context,
            "body": body,
            "isBase64Encoded": is_base64,
        }

    # ------------------------------------------------------------------ WebSocket
    def _ws_context(
        websocket: WebSocket,
        connection_id: str,
        route_key: str,
        event_type: str,
        connected_at: float,
        authorizer: dict[str, Any],
    ) -> dict[str, Any]:
        now = time.time()
        return {
            "routeKey": route_key,
            "eventType": event_type,
            "extendedRequestId": base64.b64encode(secrets.token_bytes(6)).decode("ascii"),
            "requestTime": _request_time(now),
            "messageDirection": "IN",
            "stage": stage,
            "connectedAt": int(connected_at * 1000),
            "requestTimeEpoch": int(now * 1000),
            "identity": {
                "sourceIp": websocket.client.host if websocket.client else "127.0.0.1",
                "userAgent": websocket.headers.get("user-agent"),
            },
            "requestId": str(uuid.uuid4()),
            "domainName": domain_name,
            "connectionId": connection_id,
            "apiId": api_id,
            "authorizer": authorizer,
        }

    async def ws(websocket: WebSocket) -> None:
        token = websocket.query_params.get("token") or _token_from(websocket.headers.get("authorization"))
        claims = tokens.claims_for(token)
        if claims is None:
            await websocket.close(code=WS_UNAUTHORIZED)  # before accept: the handshake gets HTTP 403
            return
        connection_id = new_connection_id()
        connected_at = time.time()
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
        query, multi_query = _multi(list(websocket.query_params.multi_items()))
        headers, multi_headers = _multi([*websocket.headers.items(), ("host", domain_name)])
        connect_event = {
            "headers": headers,
            "multiValueHeaders": multi_headers,
            "queryStringParameters": query,
            "multiValueQueryStringParameters": multi_query,
            "requestContext": _ws_context(websocket, connection_id, "$connect", "CONNECT", connected_at, authorizer),
            "isBase64Encoded": False,
        }
        try:
            result = await invoke(WS_CONNECT_FUNCTION, connect_event)
        except Exception:
            log.exception("Lambda %s failed", WS_CONNECT_FUNCTION)
            result = None
        if _lambda_error(result) is not None or int(result["statusCode"]) >= 400:  # type: ignore[index]
            await websocket.close(code=WS_UNAUTHORIZED)
            return

        await websocket.accept()
        connection = _Connection(
            connection_id,
            websocket,
            asyncio.get_running_loop(),
            connect_event["requestContext"]["identity"]["sourceIp"],
            websocket.headers.get("user-agent", ""),
        )
        CONNECTIONS.add(connection)
        pending: set[asyncio.Task[None]] = set()
        close_code = 1005

        async def handle(body: str, is_base64: bool) -> None:
            context = _ws_context(websocket, connection_id, "$default", "MESSAGE", connected_at, authorizer)
            context["messageId"] = base64.b64encode(secrets.token_bytes(6)).decode("ascii")
            event = {"requestContext": context, "body": body, "isBase64Encoded": is_base64}
            try:
                reply = await invoke(WS_MESSAGE_FUNCTION, event)
            except Exception:
                log.exception("Lambda %s failed", WS_MESSAGE_FUNCTION)
                reply = {"errorType": "Error"}
            if isinstance(reply, dict) and ("errorType" in reply or "errorMessage" in reply):
                # What API Gateway itself sends back when the route's integration fails.
                raw: bytes | None = json.dumps(
                    {
                        "message": "Internal server error",
                        "connectionId": connection_id,
                        "requestId": context["requestId"],
                    }
                ).encode("utf-8")
            elif isinstance(reply, dict) and reply.get("body"):
                out = reply["body"]
                if reply.get("isBase64Encoded"):
                    raw = base64.b64decode(out)
                else:
                    raw = (out if isinstance(out, str) else json.dumps(out)).encode("utf-8")
            else:
                raw = None
            if raw is not None:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await connection.send(raw)

        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    close_code = int(message.get("code") or 1005)
                    break
                connection.last_active_at = time.time()
                if message.get("text") is not None:
                    body, is_base64 = message["text"], False
                else:
                    body, is_base64 = base64.b64encode(message.get("bytes") or b"").decode("ascii"), True
                # Each frame is its own invocation, as on AWS: a long handler does not block the next frame.
                task = asyncio.create_task(handle(body, is_base64))
                pending.add(task)
                task.add_done_callback(pending.discard)
        except WebSocketDisconnect as exc:
            close_code = exc.code
        finally:
            connection.closed = True
            CONNECTIONS.remove(connection_id)
            context = _ws_context(websocket, connection_id, "$disconnect", "DISCONNECT", connected_at, authorizer)
            context["disconnectStatusCode"] = close_code
            context["disconnectReason"] = f"Client-side close frame status code '{close_code}'"
            disconnect_event = {
                "headers": headers,
                "multiValueHeaders": multi_headers,
                "requestContext": context,
                "isBase64Encoded": False,
            }
            try:
                await invoke(WS_DISCONNECT_FUNCTION, disconnect_event)
            except Exception:
                log.exception("Lambda %s failed", WS_DISCONNECT_FUNCTION)

    # ------------------------------------------------------------------ MCP
    async def mcp_unavailable(request: Request) -> Response:
        return error_envelope(503, "UPSTREAM_UNAVAILABLE", "The MCP gateway is not built yet.", str(uuid.uuid4()))

    # ------------------------------------------------------------------ static files
    def _safe_file(root: Path, relative: str) -> Path | None:
        candidate = (root / relative.lstrip("/")).resolve()
        if not candidate.is_relative_to(root.resolve()) or not candidate.is_file():
            return None
        return candidate

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "connections": len(CONNECTIONS.ids())})

    async def site(request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return error_envelope(
                405,
                "METHOD_NOT_ALLOWED",
                f"Method {request.method} is not supported here.",
                str(uuid.uuid4()),
                headers={"Allow": "GET, HEAD"},
            )
        root = Path(web_dir) if web_dir is not None else None
        if root is not None and (root / "index.html").is_file():
            found = _safe_file(root, request.url.path) if request.url.path != "/" else None
            if found is not None:
                return FileResponse(found, media_type=mimetypes.guess_type(found.name)[0])
            # Single-page app: every unknown path is a client-side route.
            return FileResponse(root / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_LANDING_PAGE)

    # Endpoints wrapped in _AnyMethod see every HTTP method, so they answer 405 in the project's envelope.
    routes: list[Any] = [
        Route("/healthz", healthz, methods=["GET", "HEAD"]),
        Route("/api", _AnyMethod(rest)),
        Route("/api/{path:anypath}", _AnyMethod(rest)),
        WebSocketRoute("/ws", ws),
    ]
    if mcp_app is None:
        routes += [
            Route("/mcp", _AnyMethod(mcp_unavailable)),
            Route("/mcp/{path:path}", _AnyMethod(mcp_unavailable)),
        ]
    elif mcp_strip_prefix:
        routes.append(Mount("/mcp", app=mcp_app))
    else:
        # A Route whose endpoint is an ASGI object passes the scope on with its path unchanged.
        routes += [Route("/mcp", _Passthrough(mcp_app)), Route("/mcp/{path:path}", _Passthrough(mcp_app))]
    routes.append(Route("/{path:path}", _AnyMethod(site)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        inner = getattr(getattr(mcp_app, "router", None), "lifespan_context", None)
        if inner is None:
            yield
            return
        # The MCP streamable-HTTP session manager only runs inside its app's lifespan.
        async with inner(mcp_app):
            yield

    return Starlette(routes=routes, lifespan=lifespan)


class _AnyPath(Convertor[str]):
    """Starlette's ``path`` convertor stops at a newline (``.*``); API Gateway's ``{proxy+}`` passes
    any decoded path to the function, which answers in the project's envelope."""

    regex = r"[\s\S]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("anypath", _AnyPath())


class _AnyMethod:
    """A request/response endpoint that Starlette routes for every method (it is not a function)."""

    def __init__(self, endpoint: Callable[[Request], Any]) -> None:
        self._app = request_response(endpoint)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


class _Passthrough:
    """An ASGI app behind a Route: every method, path unchanged (plain ASGI functions included)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


def _rest_response(result: dict[str, Any], request_id: str, *, head: bool) -> Response:
    status = int(result["statusCode"])
    body = result.get("body") or ""
    if result.get("isBase64Encoded"):
        content = base64.b64decode(body)
    else:
        content = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
    pairs: list[tuple[str, str]] = []
    single = result.get("headers") or {}
    multi = result.get("multiValueHeaders") or {}
    for key, value in single.items():
        if key.lower() not in {k.lower() for k in multi}:
            pairs.append((key, str(value)))
    for key, values in multi.items():
        pairs += [(key, str(v)) for v in values or []]
    pairs = [(k, v) for k, v in pairs if k.lower() not in _HOP_BY_HOP]
    if not any(k.lower() == "content-type" for k, _ in pairs):
        pairs.append(("content-type", "application/json"))  # API Gateway's default
    pairs.append(("x-amzn-RequestId", request_id))
    response = Response(content=b"" if head else content, status_code=status)
    if head:
        response.raw_headers = [(b"content-length", str(len(content)).encode())]
    # HTTP header values are latin-1; replace what cannot be sent rather than fail the response.
    response.raw_headers += [(k.lower().encode("latin-1", "replace"), v.encode("latin-1", "replace")) for k, v in pairs]
    return response


_LANDING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Launchpod sandbox</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>Launchpod sandbox</h1>
<p>The web UI is not built yet (<code>web/dist</code> is missing). The API is up:</p>
<ul>
<li><a href="/api/docs">/api/docs</a> &mdash; the REST API (Swagger UI)</li>
<li><a href="/api/health">/api/health</a> &mdash; API health</li>
</ul>
<p>WebSocket: <code>/ws?token=&lt;token&gt;</code> &middot; MCP: <code>/mcp</code></p>
</body></html>
"""
