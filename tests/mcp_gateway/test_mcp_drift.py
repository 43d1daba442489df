"""REST and MCP cannot drift: the API's own OpenAPI document and the tool list describe the same operations.

The spec is built in process from the API Lambda's resolver, so this runs in the fast suite; the
sandbox test does the same over HTTP against the running API.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from launchpod.contracts.catalog_ops import BY_ID

from mcp_gateway.tools import list_tools

# the REST route is in _meta for a client that asks for the full description (as for output schemas)
TOOLS = {t.name: t for t in list_tools(output_schemas=True) if t.meta and t.meta.get("launchpod/rest")}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    from launchpod.entrypoints.api.app import app

    return dict(json.loads(app.get_openapi_json_schema(title="Launchpod API", version="0")))


def _operations(spec: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return {
        op["operationId"]: (method.upper(), path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op and BY_ID[op["operationId"]].tool  # OpenAI's: no tools
    }


def _body_fields(spec: dict[str, Any], op: dict[str, Any]) -> set[str]:
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if not schema:
        return set()
    refs = [s["$ref"] for s in [schema, *schema.get("anyOf", [])] if "$ref" in s]
    assert len(refs) == 1, schema
    properties = spec["components"]["schemas"][refs[0].rsplit("/", 1)[-1]].get("properties", {})
    return {name for name, sub in properties.items() if not sub.get("deprecated")}


def test_every_documented_rest_operation_is_a_tool_and_no_tool_is_undocumented(spec: dict[str, Any]) -> None:
    documented = {op_id: (method, path) for op_id, (method, path, _) in _operations(spec).items()}
    offered = {
        name: (t.meta["launchpod/rest"]["method"], t.meta["launchpod/rest"]["path"]) for name, t in TOOLS.items()
    }
    assert offered == documented


def test_each_tool_takes_exactly_the_fields_its_rest_route_takes(spec: dict[str, Any]) -> None:
    """The same fields, but the cluster: the route may call it ``name``, every tool calls it ``cluster``."""
    for op_id, (_, path, op) in _operations(spec).items():
        # an older spelling the API still takes (deprecated) is not offered to agents
        params = {p["name"] for p in op.get("parameters", []) if not p.get("deprecated")}
        rest_fields = params | _body_fields(spec, op)
        if path.startswith("/api/clusters") and "name" in rest_fields:
            rest_fields = rest_fields - {"name"} | {"cluster"}
        tool_fields = set(TOOLS[op_id].inputSchema.get("properties", {}))
        assert tool_fields == rest_fields, op_id
