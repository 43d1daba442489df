"""The tool list stays lean: its size as an agent receives it is under a budget, and no operation is lost.

Measured with bench/mcp_tokens.py (characters / 4, as there): the list c6fb098 served cost 93,792 tokens
with its output schemas and 32,401 without; this list costs 19,055. The budget leaves about 10% for
operations the catalog adds; an addition that needs more should earn it by trimming elsewhere.
"""

from __future__ import annotations

import json
from typing import Any

from launchpod.contracts.catalog_ops import TOOLS
from mcp import types
from mcp.shared.memory import create_connected_server_and_client_session

from mcp_gateway.schemas import OUTPUT_SCHEMAS_META
from mcp_gateway.server import build_server
from mcp_gateway.tools import WAIT_TOOL

# 19,274 at the diet (95,593 before it, the same catalog in the old shape); since then the notification tools
# (+851), delete_hyperpod, the rules the input schemas now state (oneOf, uniqueItems, const) and the six
# training-plan tools (+1,614) added ~3,800; instance-group depth (flexible types, minimum, autoPatch, image in
# add_instance_group and update_instance_group, their guide lines: 23,087 -> 24,208) +1,121; create_endpoint's
# prefill/decode section (pd) +418; move_nodes +461; team quotas on every
# resource, borrowing, topology (+547); the five Space tools +1,234, two recipes +16; the five metrics
# tools (node, job, endpoint, cluster GPU, idle capacity) +1,289; Regions (region on create_cluster,
# provision_cluster, import_cluster, buy_training_plan and the two catalog reads, regions on the offerings search,
# and list_regions: 28,401 -> 28,720) +319.
BUDGET_TOKENS = 28_720


def _tokens(tools: list[types.Tool]) -> int:
    wire = json.dumps({"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]})
    return len(wire) // 4


async def _listed(params: types.PaginatedRequestParams | None = None) -> list[types.Tool]:
    server = build_server("http://127.0.0.1:9", lambda _request: "unused")
    async with create_connected_server_and_client_session(server) as session:
        return (await session.list_tools(params=params)).tools


async def test_the_tool_list_an_agent_receives_is_under_its_token_budget() -> None:
    tools = await _listed()
    assert _tokens(tools) <= BUDGET_TOKENS, f"{_tokens(tools)} tokens; budget {BUDGET_TOKENS}"


async def test_output_schemas_are_what_makes_asking_for_them_expensive() -> None:
    asked = await _listed(types.PaginatedRequestParams(_meta={OUTPUT_SCHEMAS_META: True}))  # type: ignore[call-arg]
    assert _tokens(asked) > 3 * BUDGET_TOKENS  # why they are not sent unasked
    assert [t.name for t in asked] == [t.name for t in await _listed()]


async def test_every_catalog_operation_maps_to_one_tool_with_its_route() -> None:
    tools = {t.name: t for t in await _listed()}
    assert set(tools) == {e.id for e in TOOLS} | {WAIT_TOOL}
    for entry in TOOLS:
        meta: dict[str, Any] = tools[entry.id].meta or {}
        assert meta["launchpod/rest"] == {"method": entry.method, "path": entry.path}, entry.id
