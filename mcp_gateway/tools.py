"""MCP tools, made from the operation catalog: one tool per REST operation, plus a bounded wait.

Nothing here is written per operation. A tool's name is the catalog id, its input schema is the REST
request model's JSON schema, its output schema is the REST response model's, and its annotations come
from the entry's ``mutates``/``destructive``/``idempotent`` flags, so a new catalog entry is a new tool.
``wait_for_operation`` is the one tool of the gateway's own: it polls ``get_operation`` with backoff so
an agent follows a long operation to its terminal state without spinning.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, cast

import anyio
from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry
from launchpod.contracts.common import Contract, OperationId
from launchpod.contracts.errors import ErrorCode, ErrorDetail, ErrorView
from launchpod.contracts.operations import NoopView, OperationStatus, OperationView
from launchpod.contracts.plans import PlanView
from mcp import types
from pydantic import Field, TypeAdapter, ValidationError

from mcp_gateway.rest import RestClient, RestError

STATUS_TOOL = "get_operation"
WAIT_TOOL = "wait_for_operation"
MAX_WAIT_SECONDS = 300
TERMINAL = tuple(s.value for s in OperationStatus if s.terminal)


class WaitForOperationInput(Contract):
    """Follow an operation until it is SUCCEEDED, FAILED or CANCELLED, or the time runs out."""

    operationId: OperationId
    timeoutSeconds: int = Field(
        default=120,
        ge=1,
        le=MAX_WAIT_SECONDS,
        description="Longest wait in seconds (at most 300). If the operation is still running, call again.",
    )


class WaitForOperationResult(Contract):
    terminal: bool = Field(description="True when status is SUCCEEDED, FAILED or CANCELLED.")
    status: OperationStatus
    waitedSeconds: float
    polls: int
    summary: str = Field(description="What happened and what to do next.")
    operation: OperationView


def _title(op_id: str) -> str:
    return op_id.replace("_", " ").capitalize()


def description_of(entry: CatalogEntry) -> str:
    """The catalog's words, plus what an agent must know before calling: role, danger, completion."""
    text = entry.description
    if entry.mutates and not entry.accepted and not entry.immediate:
        status = entry.status_tool or STATUS_TOOL
        text += (
            f" Changes state; {status} decides completion: the affected operation is finished only when"
            f" {status} reports SUCCEEDED, FAILED or CANCELLED."
        )
    if entry.destructive:
        text += " Destructive: confirm with the user before calling."
    if entry.role is not None:
        text += f" Needs the {entry.role} role."
    return text


def output_schema_of(entry: CatalogEntry) -> dict[str, Any]:
    """The REST response model's schema. A mutation may also answer 200 NOOP (DESIGN §3, empty plan), and
    one that takes dryRun 200 with the plan."""
    if not entry.mutates:
        return entry.response.model_json_schema(mode="serialization")
    answers = cast(Any, entry.response) | NoopView
    if "dryRun" in entry.query:
        answers = answers | PlanView
    schema = TypeAdapter[Any](answers).json_schema(mode="serialization")
    # MCP requires an object at the root of an output schema; both branches are objects.
    return {"type": "object", **schema}


def tool_for(entry: CatalogEntry) -> types.Tool:
    return types.Tool(
        name=entry.id,
        title=_title(entry.id),
        description=description_of(entry),
        inputSchema=entry.input.model_json_schema(),
        outputSchema=output_schema_of(entry),
        annotations=types.ToolAnnotations(
            title=_title(entry.id),
            readOnlyHint=not entry.mutates,
            destructiveHint=entry.destructive,
            idempotentHint=entry.idempotent,
            openWorldHint=False,
        ),
        _meta={
            "launchpod/rest": {"method": entry.method, "path": entry.path},
            "launchpod/role": entry.role.value if entry.role else None,
            "launchpod/statusTool": entry.status_tool,
        },
    )


def wait_tool() -> types.Tool:
    return types.Tool(
        name=WAIT_TOOL,
        title="Wait for operation",
        description=(
            "Wait until an operation reaches a terminal state (SUCCEEDED, FAILED or CANCELLED), polling"
            f" {STATUS_TOOL} with backoff for at most timeoutSeconds (300 max). Use it after every tool that"
            " answers with an operation instead of calling get_operation in a loop. If the result says"
            " terminal=false, call it again; on FAILED, read the failed phase's message and error."
            " Needs the viewer role."
        ),
        inputSchema=WaitForOperationInput.model_json_schema(),
        outputSchema=WaitForOperationResult.model_json_schema(mode="serialization"),
        annotations=types.ToolAnnotations(
            title="Wait for operation",
            readOnlyHint=True,
            destructiveHint=False,
            idempotentHint=True,
            openWorldHint=False,
        ),
        _meta={"launchpod/rest": None, "launchpod/role": "viewer", "launchpod/statusTool": STATUS_TOOL},
    )


def list_tools(catalog: Iterable[CatalogEntry] = CATALOG) -> list[types.Tool]:
    return [*(tool_for(e) for e in catalog), wait_tool()]


def ok(result: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result, indent=2, default=str))],
        structuredContent=result,
        isError=False,
    )


def failed(error: RestError) -> types.CallToolResult:
    """A tool error with the API's message and fields as text, and the whole envelope as data."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error.text())],
        structuredContent=error.envelope(),
        isError=True,
    )


def _local_validation_error(exc: ValidationError) -> RestError:
    """Same envelope shape as the API's 422, for the one input the gateway owns (the wait tool's)."""
    details = [
        ErrorDetail(field=".".join(str(p) for p in err["loc"]) or None, rule=err["type"], message=err["msg"])
        for err in exc.errors()
    ]
    return RestError(
        422, ErrorView(code=ErrorCode.VALIDATION_FAILED, message="The request is not valid", details=details)
    )


Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class ToolRunner:
    """Runs tools for one caller: every call goes through a RestClient holding that caller's token."""

    def __init__(
        self,
        client: RestClient,
        catalog: Iterable[CatalogEntry] = CATALOG,
        *,
        max_wait_seconds: float = MAX_WAIT_SECONDS,
        poll_first: float = 1.0,
        poll_max: float = 10.0,
    ) -> None:
        self.client = client
        self.entries = {e.id: e for e in catalog}
        self.max_wait_seconds = max_wait_seconds
        self.poll_first = poll_first
        self.poll_max = poll_max

    async def call(
        self, name: str, arguments: dict[str, Any], progress: Progress | None = None
    ) -> types.CallToolResult:
        try:
            if name == WAIT_TOOL:
                return ok(await self.wait(arguments, progress))
            entry = self.entries.get(name)
            if entry is None:
                raise RestError(
                    404,
                    ErrorView(
                        code=ErrorCode.UNKNOWN_TOOL, message=f"No tool named {name}; call tools/list for the tools."
                    ),
                )
            return ok(await self.client.call(entry, arguments))
        except RestError as exc:
            return failed(exc)

    async def wait(self, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        try:
            request = WaitForOperationInput.model_validate(arguments)
        except ValidationError as exc:
            raise _local_validation_error(exc) from exc
        budget = min(float(request.timeoutSeconds), self.max_wait_seconds)
        get = self.entries[STATUS_TOOL]
        started = time.monotonic()
        delay = self.poll_first
        polls = 0
        while True:
            view = await self.client.call(get, {"operationId": request.operationId})
            polls += 1
            operation = OperationView.model_validate(view)
            waited = time.monotonic() - started
            if progress is not None:
                done = sum(1 for p in operation.phases if p.status in ("SUCCEEDED", "SKIPPED"))
                await progress(float(done), float(len(operation.phases) or 1), f"{operation.status}")
            if operation.status in TERMINAL or waited + delay > budget:
                return WaitForOperationResult(
                    terminal=operation.status in TERMINAL,
                    status=operation.status,
                    waitedSeconds=round(waited, 2),
                    polls=polls,
                    summary=_summary(operation, waited),
                    operation=operation,
                ).model_dump(mode="json")
            await anyio.sleep(delay)
            delay = min(delay * 1.5, self.poll_max)


def _summary(operation: OperationView, waited: float) -> str:
    status = operation.status
    if status == OperationStatus.SUCCEEDED:
        return f"Operation {operation.id} ({operation.kind} on {operation.target}) SUCCEEDED."
    if status == OperationStatus.FAILED:
        phase = next((p for p in operation.phases if p.status == "FAILED"), None)
        where = f" in phase {phase.name}: {phase.message or phase.error or 'no message'}" if phase else ""
        return (
            f"Operation {operation.id} FAILED{where}. {operation.message or ''}".strip()
            + " Diagnose before retrying; retry_operation resumes from the failed phase."
        )
    if status == OperationStatus.CANCELLED:
        return f"Operation {operation.id} was CANCELLED; retry_operation resumes it."
    running = next((p for p in operation.phases if p.status == "RUNNING"), None)
    now = f", now in phase {running.name}" if running else ""
    return (
        f"Operation {operation.id} is still {status}{now} after {waited:.0f} s. Not finished: call"
        f" {WAIT_TOOL} again with the same operationId."
    )
