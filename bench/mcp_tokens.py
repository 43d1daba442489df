"""Benchmark: what the MCP gateway's tool list costs an agent before its first call, before and after.

"Now" is the ``tools/list`` answer as an SDK client receives it from the gateway (the in-memory
transport, so the bytes are the JSON-RPC result's): the list a session starts with (the core and
``enable_toolsets``), the list with every toolset enabled (``--toolsets all``, or a stateless gateway without
``X-MCP-Toolsets``), and that list for a client that asks for output schemas (``_meta:
{"launchpod/outputSchemas": true}``). "Before" is the list as c6fb098 served it, rebuilt from today's
catalog: each tool with the REST request model's full schema, the REST response model's full schema as its
output schema, the catalog's description with the completion, role and danger sentences, and all four
annotations and three ``_meta`` keys. c6fb098 itself (66 tools) served 32,401 without output schemas.

Tokens: cl100k_base's count with ``tiktoken`` importable and its data file at hand, or with ``bpe-openai``
(the same encodings built in, so it counts offline); else characters / 4, OpenAI's rule of thumb ("a token
is about 4 characters"), which undercounts this JSON by about 15%.

    .venv/bin/python bench/mcp_tokens.py
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from launchpod.contracts.catalog_ops import TOOLS
from mcp import types
from mcp.shared.memory import create_connected_server_and_client_session

from mcp_gateway.schemas import OUTPUT_SCHEMAS_META, output_schema_of
from mcp_gateway.server import build_server
from mcp_gateway.tools import STATUS_TOOL, WAIT_TOOL, WaitForOperationInput, WaitForOperationResult


def counter() -> tuple[str, Callable[[str], int]]:
    for module in ("tiktoken", "bpe_openai"):  # bpe_openai: tiktoken's API, its data files built in (offline)
        try:
            encoding = __import__(module).get_encoding("cl100k_base")
            return f"{module} cl100k_base", lambda text, encoding=encoding: len(encoding.encode(text))
        except Exception:  # not installed, or (tiktoken) its data file cannot be fetched offline
            continue
    return "characters / 4", lambda text: len(text) // 4


def before() -> list[dict[str, Any]]:
    tools = []
    for entry in TOOLS:
        text = entry.description
        if entry.mutates and not entry.accepted and not entry.immediate:
            text += f" Changes state; {STATUS_TOOL} decides completion."
        if entry.destructive:
            text += " Destructive: confirm with the user before calling."
        if entry.role is not None:
            text += f" Needs the {entry.role} role."
        title = entry.id.replace("_", " ").capitalize()
        tools.append(
            {
                "name": entry.id,
                "title": title,
                "description": text,
                "inputSchema": entry.input.model_json_schema(),
                "outputSchema": output_schema_of(entry),
                "annotations": {
                    "title": title,
                    "readOnlyHint": not entry.mutates,
                    "destructiveHint": entry.destructive,
                    "idempotentHint": entry.idempotent,
                    "openWorldHint": False,
                },
                "_meta": {
                    "launchpod/rest": {"method": entry.method, "path": entry.path},
                    "launchpod/role": entry.role.value if entry.role else None,
                    "launchpod/statusTool": entry.status_tool,
                },
            }
        )
    tools.append(
        {
            "name": WAIT_TOOL,
            "title": "Wait for operation",
            "description": "Wait until an operation reaches a terminal state (SUCCEEDED, FAILED or CANCELLED),"
            " polling get_operation with backoff for at most timeoutSeconds (300 max). Use it after every tool"
            " that answers with an operation instead of calling get_operation in a loop. If the result says"
            " terminal=false, call it again; on FAILED, read the failed phase's message and error."
            " Needs the viewer role.",
            "inputSchema": WaitForOperationInput.model_json_schema(),
            "outputSchema": WaitForOperationResult.model_json_schema(mode="serialization"),
            "annotations": {
                "title": "Wait for operation",
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
            "_meta": {"launchpod/rest": None, "launchpod/role": "viewer", "launchpod/statusTool": STATUS_TOOL},
        }
    )
    return tools


C6FB098_TOKENS = 32_401  # characters / 4, without output schemas


async def received(ask_outputs: bool, toolsets: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """tools/list as an SDK client session receives it from the gateway."""
    server = build_server("http://127.0.0.1:9", lambda _request: "unused", toolsets=toolsets)
    params = types.PaginatedRequestParams(_meta={OUTPUT_SCHEMAS_META: True}) if ask_outputs else None  # type: ignore[call-arg]
    async with create_connected_server_and_client_session(server) as session:
        result = await session.list_tools(params=params)
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]


def sizes(tools: list[dict[str, Any]], count: Callable[[str], int]) -> dict[str, int]:
    def part(keep: Callable[[dict[str, Any]], Any]) -> int:
        return count(json.dumps([keep(t) for t in tools]))

    return {
        "tools": len(tools),
        "whole list": count(json.dumps({"tools": tools})),
        "without output schemas": count(
            json.dumps({"tools": [{k: v for k, v in t.items() if k != "outputSchema"} for t in tools]})
        ),
        "descriptions": part(lambda t: t.get("description", "")),
        "input schemas": part(lambda t: t["inputSchema"]),
        "output schemas": count(json.dumps([t["outputSchema"] for t in tools if "outputSchema" in t]))
        if any("outputSchema" in t for t in tools)
        else 0,
    }


def main() -> None:
    how, count = counter()
    rows = {
        "before (c6fb098)": sizes(before(), count),
        "now, a session's first list": sizes(anyio.run(received, False), count),
        "now, every toolset": sizes(anyio.run(received, False, ("all",)), count),
        "now, every toolset, output schemas": sizes(anyio.run(received, True, ("all",)), count),
    }
    print(f"tokens of the MCP tool list ({how}):")
    columns = list(next(iter(rows.values())))
    print(f"{'':34}" + "".join(f"{c:>24}" for c in columns))
    for label, row in rows.items():
        print(f"{label:34}" + "".join(f"{row[c]:>24}" for c in columns))
    old, new = rows["before (c6fb098)"], rows["now, a session's first list"]
    every = rows["now, every toolset"]
    print(f"first list: {new['whole list'] / old['without output schemas']:.2f} of before, same catalog")
    print(f"every toolset: {every['whole list'] / old['without output schemas']:.2f} of before, same catalog")
    if how == "characters / 4":
        print(f"first list: {new['whole list'] / C6FB098_TOKENS:.2f} of what c6fb098 served ({C6FB098_TOKENS})")


if __name__ == "__main__":
    main()
