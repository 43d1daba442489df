"""The MCP server and its streamable HTTP app.

``build_server`` makes the MCP server: tools from the catalog, skills as prompts and resources. Whose
token a call carries is decided by a ``TokenSource``: over HTTP, the ``Authorization: Bearer`` header of
the MCP request being served; over stdio, the token the process was started with.

``build_asgi_app`` serves it over streamable HTTP, with sessions that remember the toolsets a client enabled
(``toolsets``), or stateless (any instance, including a Lambda, can answer any request), where a ``SessionStore``
keeps each session's toolsets between requests (``sessions``). Its lifespan
starts the MCP session manager, so a host that mounts it must run that
lifespan (``async with app.router.lifespan_context(app): ...``); without it, ``/mcp`` answers 503.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, TypedDict, Unpack

import anyio
import httpx
from launchpod.contracts.catalog_ops import TOOLS, CatalogEntry
from mcp import types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.models import InitializationOptions
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from pydantic import AnyUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mcp_gateway import __version__, skills
from mcp_gateway.rest import RestClient
from mcp_gateway.schemas import OUTPUT_SCHEMAS_META
from mcp_gateway.sessions import SESSION, SessionStore, StoredSessionManager
from mcp_gateway.tools import MAX_WAIT_SECONDS, ToolRunner, failed, invalid, list_tools, ok
from mcp_gateway.toolsets import ALL, ENABLE_TOOL, HEADER, Toolsets

log = logging.getLogger(__name__)

TokenSource = Callable[[Request | None], str | None]

INSTRUCTIONS = """\
Launchpod runs SageMaker HyperPod clusters on Amazon EKS. Every tool is one call to the Launchpod REST API
made with your user's own token, so you can do exactly what your user can do.
- Inspect before you create: list_clusters, list_availability_zones and list_instance_types first.
- Every tool that works on a cluster takes the cluster's name as `cluster`.
- Tools that change things come in toolsets: enable_toolsets names them and adds the ones you need.
- A new cluster is one call: provision_cluster (control plane, dependencies, HyperPod, storage).
- Tools that change things answer with an operation. It is finished only when get_operation says
  SUCCEEDED, FAILED or CANCELLED: follow it with wait_for_operation, never assume "request sent" is done.
- Every tool that changes things takes dryRun: true to answer its plan (each step and why) and start
  nothing; when nothing would change it answers NOOP.
- Ask the user only decision-level questions (availability zone, instance type, capacity type); Launchpod
  plans CIDRs, route tables and security groups itself.
- Every tool needs the viewer role unless its description names another.
- The prompts (and launchpod://skills/ resources) are playbooks for whole tasks; follow them.
"""


def header_token(request: Request | None) -> str | None:
    """The bearer token of the HTTP request an MCP message arrived in."""
    if request is None:
        return None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class _Server(Server[Any, Request]):
    """The SDK's server, declaring ``tools.listChanged`` when the tool list can change within a session."""

    def __init__(self, *, list_changes: bool) -> None:
        super().__init__("launchpod", version=__version__, instructions=INSTRUCTIONS, website_url=None)
        self.list_changes = list_changes

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=self.list_changes)
        return super().create_initialization_options(options, experimental_capabilities)


class ServerOptions(TypedDict, total=False):
    """``build_server``'s options that ``build_asgi_app`` passes on as given (their defaults are build_server's)."""

    rest_transport: httpx.AsyncBaseTransport | None
    max_wait_seconds: float
    poll_first: float
    poll_max: float
    output_schemas: bool
    toolsets: Iterable[str]


def build_server(
    api_base_url: str,
    token_source: TokenSource,
    *,
    catalog: Iterable[CatalogEntry] = TOOLS,
    rest_transport: httpx.AsyncBaseTransport | None = None,
    max_wait_seconds: float = MAX_WAIT_SECONDS,
    poll_first: float = 1.0,
    poll_max: float = 10.0,
    output_schemas: bool = False,
    toolsets: Iterable[str] = (),
    stateless: bool = False,
    session_store: SessionStore | None = None,
) -> Server[Any, Request]:
    """The MCP server. ``output_schemas`` lists every tool's output schema to every client; without it a
    client gets them by sending ``_meta: {"launchpod/outputSchemas": true}`` with ``tools/list``.

    A session starts with the core tools and ``toolsets`` (names, or ``all``) enabled; an HTTP request's
    ``X-MCP-Toolsets`` header chooses instead. ``stateless``: each request is a session of its own (the
    stateless HTTP transport), so nothing can be enabled for later requests and the list defaults to ``all``;
    with a ``session_store``, a request of a session the store knows (``StoredSessionManager`` says which) starts
    with the core tools and what the session enabled, and what it enables is stored.
    """
    entries = tuple(catalog)
    groups = Toolsets(entries)
    start = groups.parse(toolsets)
    default = groups.parse([ALL]) if stateless and not toolsets else start
    every = list_tools(entries, output_schemas=output_schemas)
    # built on the first ask: the response models' schemas take a while, and most clients never ask
    with_outputs = functools.cache(lambda: every if output_schemas else list_tools(entries, output_schemas=True))
    tool_names = {t.name for t in every}
    enable_tool = groups.enable_tool()
    enabled_by: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()
    server = _Server(list_changes=not stateless or session_store is not None)

    def stored_session() -> tuple[str, frozenset[str]] | None:
        """The stored session this request belongs to (stateless with a store), with the toolsets it enabled."""
        request = server.request_context.request
        found = request.scope.get("state", {}).get(SESSION) if request is not None else None
        return found if session_store is not None else None

    def enabled() -> frozenset[str]:
        """The toolsets this session has enabled; a session's first request sets them (header or default)."""
        context = server.request_context
        if context.session not in enabled_by:
            header = context.request.headers.get(HEADER) if context.request is not None else None
            stored = stored_session()
            if header:
                enabled_by[context.session] = groups.parse(header.split(","))
            else:
                enabled_by[context.session] = start | stored[1] if stored is not None else default
        return enabled_by[context.session]

    async def enable(names: frozenset[str]) -> frozenset[str]:
        """Adds toolsets to this session and tells the client its tool list changed; returns those added."""
        added = names - enabled()
        stored = stored_session()
        if added and (not stateless or stored is not None):
            context = server.request_context
            if stored is not None and session_store is not None:
                await session_store.add(stored[0], added)
            enabled_by[context.session] = enabled() | added
            # on the request's own stream, so a streamable HTTP client gets it without a standalone GET stream
            changed = types.ServerNotification(types.ToolListChangedNotification())
            await context.session.send_notification(changed, related_request_id=context.request_id)
        return added

    # The SDK's low-level decorators are untyped; the handlers below are typed.
    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def _list_tools(request: types.ListToolsRequest) -> list[types.Tool]:
        # Output schemas cost an agent tokens on every session; a client that validates results asks for them.
        meta = request.params.meta if request is not None and request.params is not None else None
        asked = bool(meta is not None and (meta.model_extra or {}).get(OUTPUT_SCHEMAS_META))
        on = enabled()
        visible = groups.visible(on)
        listed = [t for t in (with_outputs() if asked else every) if t.name in visible or t.name not in groups.catalog]
        return listed if on == set(groups.members) else [*listed, enable_tool]

    # Input is validated by the REST API, not here: one validator, the same 422 for browser and agent.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def _call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        context = server.request_context
        if name == ENABLE_TOOL:
            return await _enable_toolsets(arguments)
        # a hidden tool called by name still runs (one validator: REST); its toolset is listed from now on
        await enable(groups.holding([name]))
        token = token_source(context.request)
        runner = ToolRunner(
            RestClient(api_base_url, token, transport=rest_transport),
            entries,
            max_wait_seconds=max_wait_seconds,
            poll_first=poll_first,
            poll_max=poll_max,
        )
        progress_token = context.meta.progressToken if context.meta else None

        async def progress(done: float, total: float | None, message: str | None) -> None:
            if progress_token is not None:
                await context.session.send_progress_notification(
                    progress_token, done, total, message, related_request_id=str(context.request_id)
                )

        return await runner.call(name, arguments, progress)

    async def _enable_toolsets(arguments: dict[str, Any]) -> types.CallToolResult:
        names = arguments.get("toolsets")
        try:
            if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
                raise ValueError(f"toolsets is a list of toolset names: {', '.join(groups.members)} or {ALL}.")
            wanted = groups.parse(names)
            if stateless and stored_session() is None and wanted - enabled():
                raise ValueError(
                    "This gateway serves stateless HTTP: no session keeps what you enable. Ask the user to send"
                    f" the header X-MCP-Toolsets: {','.join(sorted(wanted))} (or all) with every request."
                )
        except ValueError as exc:
            return failed(invalid(str(exc)))
        added = await enable(wanted)
        return ok(groups.enabled_answer(added, enabled()))

    async def _enable_for(skill: skills.Skill) -> None:
        # a playbook's steps call these tools: list them before the agent reaches the step
        await enable(groups.holding(skill.tools))

    @server.list_prompts()  # type: ignore[no-untyped-call, untyped-decorator]
    async def _list_prompts() -> list[types.Prompt]:
        return [skills.prompt_of(s) for s in skills.load()]

    @server.get_prompt()  # type: ignore[no-untyped-call, untyped-decorator]
    async def _get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        skill = skills.by_name(name)
        if skill is None:
            raise ValueError(f"No prompt named {name}; prompts/list names them.")
        missing = [a.name for a in skill.arguments if a.required and not (arguments or {}).get(a.name)]
        if missing:
            raise ValueError(f"Prompt {name} needs {', '.join(missing)}.")
        await _enable_for(skill)
        return types.GetPromptResult(
            description=skill.title,
            messages=[
                types.PromptMessage(
                    role="user",
                    content=types.TextContent(type="text", text=skill.render(arguments, tool_names)),
                )
            ],
        )

    @server.list_resources()  # type: ignore[no-untyped-call, untyped-decorator]
    async def _list_resources() -> list[types.Resource]:
        return [skills.resource_of(s) for s in skills.load()]

    @server.read_resource()  # type: ignore[no-untyped-call, untyped-decorator]
    async def _read_resource(uri: AnyUrl) -> Iterable[ReadResourceContents]:
        name = str(uri).removeprefix(skills.URI_PREFIX)
        skill = skills.by_name(name)
        if skill is None or not str(uri).startswith(skills.URI_PREFIX):
            raise ValueError(f"No resource {uri}; resources/list names them.")
        await _enable_for(skill)
        return [ReadResourceContents(skill.render(None, tool_names), "text/markdown")]

    return server


class _SessionEndFilter(logging.Filter):
    """Drops the SDK's traceback for a session that ended normally: when a client ends its session (DELETE),
    the SDK's transport closes the standalone GET stream's reader under the writer still reading it, which
    logs "Error in standalone SSE writer" with ClosedResourceError. Any other error still logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        closed = record.exc_info is not None and isinstance(record.exc_info[1], anyio.ClosedResourceError)
        return not (closed and record.getMessage() == "Error in standalone SSE writer")


logging.getLogger("mcp.server.streamable_http").addFilter(_SessionEndFilter())


_Manager = StreamableHTTPSessionManager | StoredSessionManager


def _envelope(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "details": [], "requestId": None}, status, headers)


class _McpEndpoint:
    """Refuses token-less requests, then hands the request to the running session manager."""

    def __init__(self, state: dict[str, _Manager | None]) -> None:
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # pragma: no cover - Starlette routes only HTTP here
            return
        manager = self.state.get("manager")
        if manager is None:
            response = _envelope(
                503, "UPSTREAM_UNAVAILABLE", "The MCP gateway's lifespan is not running; the host must run it."
            )
        elif header_token(Request(scope)) is None:
            response = _envelope(
                401,
                "UNAUTHORIZED",
                "Launchpod refuses every call without a bearer token: send 'Authorization: Bearer <token>'"
                " (your Launchpod API token) with each MCP request.",
                {"WWW-Authenticate": 'Bearer realm="launchpod"'},
            )
        else:
            await manager.handle_request(scope, receive, send)
            return
        await response(scope, receive, send)


def build_asgi_app(
    api_base_url: str,
    *,
    path: str = "/mcp",
    json_response: bool = False,
    stateless: bool = False,
    session_store: SessionStore | None = None,
    **options: Unpack[ServerOptions],
) -> Starlette:
    """The streamable HTTP app: MCP at ``path`` (default ``/mcp``), a health check at ``/healthz``.

    By default each client gets a session (``Mcp-Session-Id``) that remembers the toolsets it enabled; the
    sessions live in this process, so run one instance or route a session's requests to one instance.
    ``stateless``: each MCP request runs on a fresh transport, so no session outlives a request and the app
    can run on Lambda; then every tool is listed unless the client's ``X-MCP-Toolsets`` header chooses, or, with
    a ``session_store``, the request belongs to a session that the store keeps (``sessions``).
    The caller's bearer token is forwarded to ``api_base_url`` on every tool call; ``options`` go to ``build_server``.
    The host must run the app's lifespan (uvicorn does; a parent Starlette app must enter
    ``app.router.lifespan_context(app)`` in its own lifespan). Mounted under a prefix with
    ``Mount("/mcp", app)``, pass ``path="/"``.
    """
    server = build_server(api_base_url, header_token, stateless=stateless, session_store=session_store, **options)
    state: dict[str, _Manager | None] = {"manager": None}

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # A fresh manager per start: run() works once per instance, and an ASGI-on-Lambda adapter may
        # run the lifespan once per invocation.
        manager: _Manager = (
            StoredSessionManager(server, session_store, json_response=json_response)
            if stateless and session_store is not None
            else StreamableHTTPSessionManager(server, json_response=json_response, stateless=stateless)
        )
        async with manager.run():
            state["manager"] = manager
            try:
                yield
            finally:
                state["manager"] = None

    async def healthz(_: Request) -> JSONResponse:
        running = state["manager"] is not None
        body = {"status": "ok" if running else "starting", "version": __version__, "api": api_base_url}
        return JSONResponse(body, 200 if running else 503)

    endpoint = _McpEndpoint(state)
    routes = [Route(path, endpoint=endpoint, methods=["GET", "POST", "DELETE"])]
    if path != "/":
        routes.append(Route("/healthz", healthz, methods=["GET"]))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.mcp_server = server
    return app
