"""MCP tools, made from the operation catalog: one tool per REST operation, plus a bounded wait.

Nothing here is written per operation. A tool's name is the catalog id, its input schema the REST request
model's (compact, with the cluster called ``cluster``: ``schemas``), its description says when to use it
(``guide``) and its annotations come from the entry's ``mutates``/``destructive``/``idempotent`` flags, so a
new catalog entry is a new tool. Output schemas (the REST response models') are listed only for a client
that asks. ``wait_for_operation`` is the one tool of the gateway's own: it polls ``get_operation`` with
backoff so an agent follows a long operation to its terminal state without spinning, and reports each
phase it sees start and end as a progress notification.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio
from launchpod.contracts.catalog_ops import TOOLS, CatalogEntry
from launchpod.contracts.common import Contract, OperationId, Role
from launchpod.contracts.errors import ErrorCode, ErrorDetail
from launchpod.contracts.operations import OperationStatus, OperationView
from mcp import types
from pydantic import Field, ValidationError

from mcp_gateway.guide import WHEN
from mcp_gateway.rest import RestClient, RestError
from mcp_gateway.schemas import (
    CLUSTER,
    cluster_field,
    compact,
    input_schema_of,
    output_schema_of,
    to_rest,
    tool_error_view,
    with_tool_steps,
)

__all__ = ["output_schema_of"]

STATUS_TOOL = "get_operation"
REST_META = "launchpod/rest"
WAIT_TOOL = "wait_for_operation"
MAX_WAIT_SECONDS = 300
TERMINAL = tuple(s.value for s in OperationStatus if s.terminal)
FINISHED_PHASE = ("SUCCEEDED", "SKIPPED", "FAILED", "CANCELLED")


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


def description_of(entry: CatalogEntry) -> str:
    """When to use the tool, then what an agent must know before calling: completion, danger, role (the server's
    instructions say once that every tool needs the viewer role unless it names another)."""
    text = WHEN.get(entry.id, entry.summary)
    if entry.accepted:
        text += f" Then {WAIT_TOOL}; {STATUS_TOOL} decides completion."
    elif entry.immediate:
        text += " Effective at once, no operation."
    if entry.destructive:
        text += " Destructive: confirm with the user first."
    if entry.role is not None and entry.role != Role.VIEWER:
        text += f" Role: {entry.role.value}."
    return text


def _annotations(entry: CatalogEntry) -> types.ToolAnnotations:
    # Only what differs from MCP's defaults (readOnly false, destructive true, idempotent false, openWorld true:
    # the cautious ones, https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool), and
    # readOnlyHint always, the one hint clients act on (auto-approval). Destructive and idempotent mean nothing
    # for a read-only tool.
    if not entry.mutates:
        return types.ToolAnnotations(readOnlyHint=True)
    return types.ToolAnnotations(
        readOnlyHint=False,
        destructiveHint=None if entry.destructive else False,
        idempotentHint=True if entry.idempotent else None,
    )


def tool_for(entry: CatalogEntry, *, output_schemas: bool = False) -> types.Tool:
    """The tool as every client gets it; with ``output_schemas`` (a client that asked) also its output schema
    and its REST route in ``_meta``. No ``title``: MCP clients show the name when there is none."""
    return types.Tool(
        name=entry.id,
        description=description_of(entry),
        inputSchema=input_schema_of(entry),
        outputSchema=output_schema_of(entry) if output_schemas else None,
        annotations=_annotations(entry),
        _meta={REST_META: {"method": entry.method, "path": entry.path}} if output_schemas else None,
    )


def wait_tool(*, output_schemas: bool = False) -> types.Tool:
    return types.Tool(
        name=WAIT_TOOL,
        description=(
            "After every tool that answers an operation: wait until it is SUCCEEDED, FAILED or CANCELLED"
            f" (polls {STATUS_TOOL}, at most timeoutSeconds). terminal=false: call again. On FAILED the summary"
            " names the failed phase. Progress notifications name each phase and its status."
        ),
        inputSchema=compact(WaitForOperationInput.model_json_schema()),
        outputSchema=WaitForOperationResult.model_json_schema(mode="serialization") if output_schemas else None,
        annotations=types.ToolAnnotations(readOnlyHint=True),
    )


def list_tools(catalog: Iterable[CatalogEntry] = TOOLS, *, output_schemas: bool = False) -> list[types.Tool]:
    """One tool per catalog operation and the wait tool; output schemas only when ``output_schemas``."""
    return [*(tool_for(e, output_schemas=output_schemas) for e in catalog), wait_tool(output_schemas=output_schemas)]


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


def invalid(message: str) -> RestError:
    """A 422 for an input the gateway itself owns, in the API's envelope."""
    return RestError.of(422, ErrorCode.VALIDATION_FAILED, message)


def _local_validation_error(exc: ValidationError) -> RestError:
    """Same envelope shape as the API's 422, for the one input the gateway owns (the wait tool's)."""
    details = [
        ErrorDetail(field=".".join(str(p) for p in err["loc"]) or None, rule=err["type"], message=err["msg"])
        for err in exc.errors()
    ]
    return RestError.of(422, ErrorCode.VALIDATION_FAILED, "The request is not valid", details)


Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class ToolRunner:
    """Runs tools for one caller: every call goes through a RestClient holding that caller's token."""

    def __init__(
        self,
        client: RestClient,
        catalog: Iterable[CatalogEntry] = TOOLS,
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
                raise RestError.of(404, ErrorCode.UNKNOWN_TOOL, f"No tool named {name}; call tools/list for the tools.")
        except RestError as exc:
            return failed(exc)
        try:
            return ok(await self.client.call(entry, to_rest(entry, arguments)))
        except RestError as exc:
            field = cluster_field(entry)
            if field is not None and not (field in arguments and CLUSTER not in arguments):
                # answer in the caller's words: it called the cluster `cluster`, the route `name`
                exc.error = tool_error_view(entry, exc.error)
            # the fix as the tool an agent calls, not the REST route the API names
            exc.error = with_tool_steps(exc.error, self.entries.values())
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
        seen: dict[str, str] = {}
        reported = 0.0
        while True:
            view = await self.client.call(get, {"operationId": request.operationId})
            polls += 1
            operation = OperationView.model_validate(view)
            waited = time.monotonic() - started
            if progress is not None:
                done, news = phase_news(operation, seen)
                # MCP: a notification's progress must increase (a phase retried after FAILED waits until it does)
                if news and done > reported:
                    reported = done
                    await progress(done, float(len(operation.phases) or 1), news)
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


def phase_news(operation: OperationView, seen: dict[str, str]) -> tuple[float, str | None]:
    """How far the operation is, and what changed since ``seen`` (which it updates): in phase order, each
    phase that started or ended ("CreateCluster SUCCEEDED"), then the operation's own end.

    Progress counts finished phases and half a running one; it reaches the phase count only when the
    operation itself ends, so the notification that says so always rises (MCP wants each one higher).
    """
    changed = [p for p in operation.phases if p.status != "PENDING" and seen.get(p.name) != p.status]
    seen.update({p.name: p.status for p in changed})
    total = float(len(operation.phases) or 1)
    ended = operation.status in TERMINAL
    finished = sum(1 for p in operation.phases if p.status in FINISHED_PHASE)
    done = float(finished) + (0.5 if any(p.status == "RUNNING" for p in operation.phases) else 0.0)
    done = total if ended else min(done, total - 0.25)
    words = [f"{p.name} {p.status}" for p in changed]
    if ended and seen.get("") != operation.status:  # "" is no phase's name
        seen[""] = operation.status
        words.append(f"operation {operation.status}")
    return done, "; ".join(words) or None


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
