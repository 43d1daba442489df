"""The tool list stays lean: its size as an agent receives it is under a budget, and no operation is lost.

Measured as bench/mcp_tokens.py measures (characters / 4 of the tools/list result's JSON). The list c6fb098
served cost 32,401 tokens without output schemas (93,792 with); the goal was half, 16,200. Where the tokens
went (88 tools, 28,401): input schemas 19,604, descriptions 3,466, the REST route in ``_meta`` 1,997,
annotations 1,905, titles 593. The input schemas carry what an agent needs to fill a request (the nested
endpoint, job and instance-group specs are 40% of them); trimming them further would lose meaning, and
trimming everything else could not reach half (23,331 once titles, ``_meta``, default-valued hints and the
descriptions that repeat a field's name were gone). So a session starts with the core (every read-only tool,
the operations tools, wait_for_operation) and ``enable_toolsets``, whose description names the tools of each
toolset: an agent finds any tool in its first list and reaches it with one call (GitHub's MCP server's dynamic
toolsets; a playbook's prompt enables its toolsets itself). The budgets leave about 10% for operations the
catalog adds; an addition that needs more should earn it by trimming elsewhere.
"""

from __future__ import annotations

import json

from launchpod.contracts.catalog_ops import TOOLS
from mcp import types
from mcp.shared.memory import create_connected_server_and_client_session

from mcp_gateway.schemas import OUTPUT_SCHEMAS_META
from mcp_gateway.server import build_server
from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import ENABLE_TOOL, Toolsets

C6FB098_TOKENS = 32_401  # tools/list without output schemas at c6fb098 (66 tools)
# The core list: 5,482 at the diet (47 tools: 42 reads, the 4 operations tools, wait_for_operation, and
# enable_toolsets naming 41 tools in 11 toolsets).
BUDGET_TOKENS = 6_000
# Every toolset enabled (--toolsets all, or a stateless gateway without X-MCP-Toolsets): 23,331 at the diet
# (28,401 before it); an instance group's MIG layout (mig in add/update_instance_group) and create_endpoint's GPU
# partitions, queue and priority add ~580 to it; the first groups' depth in create_hyperpod and provision_cluster
# (instanceTypes, minInstanceCount, autoPatch, imageId, imageReleaseVersion) ~1,290; submit_job's elastic and
# checkpointless fields ~370, create_endpoint's multiNode ~130; Regions (region on the create, provision, import and
# buy bodies and two catalog reads, regions on the offerings search, list_regions) ~320.
BUDGET_ALL_TOKENS = 27_200


def _tokens(tools: list[types.Tool]) -> int:
    wire = json.dumps({"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]})
    return len(wire) // 4


async def _listed(
    params: types.PaginatedRequestParams | None = None, toolsets: tuple[str, ...] = ()
) -> list[types.Tool]:
    server = build_server("http://127.0.0.1:9", lambda _request: "unused", toolsets=toolsets)
    async with create_connected_server_and_client_session(server) as session:
        return (await session.list_tools(params=params)).tools


async def test_the_tool_list_an_agent_starts_with_is_under_half_of_c6fb098s() -> None:
    tools = await _listed()
    assert _tokens(tools) <= BUDGET_TOKENS <= C6FB098_TOKENS // 2, f"{_tokens(tools)} tokens; budget {BUDGET_TOKENS}"


async def test_every_tool_listed_at_once_is_under_its_own_budget() -> None:
    tools = await _listed(toolsets=("all",))
    assert _tokens(tools) <= BUDGET_ALL_TOKENS, f"{_tokens(tools)} tokens; budget {BUDGET_ALL_TOKENS}"


async def test_output_schemas_are_what_makes_asking_for_them_expensive() -> None:
    every = await _listed(toolsets=("all",))
    asked = await _listed(types.PaginatedRequestParams(_meta={OUTPUT_SCHEMAS_META: True}), ("all",))  # type: ignore[call-arg]
    assert _tokens(asked) > 3 * _tokens(every)  # why they are not sent unasked
    assert [t.name for t in asked] == [t.name for t in every]


async def test_every_catalog_operation_is_listed_or_named_by_the_toolset_that_lists_it() -> None:
    """No capability lost: each operation is in the first list, or enable_toolsets' description names it and
    one call enabling its toolset lists it."""
    groups = Toolsets(TOOLS)
    server = build_server("http://127.0.0.1:9", lambda _request: "unused")
    async with create_connected_server_and_client_session(server) as session:
        first = {t.name: t for t in (await session.list_tools()).tools}
        described = first[ENABLE_TOOL].description or ""
        reachable = set(first)
        for name, members in groups.members.items():
            assert f"{name}: {', '.join(members)}" in described
            assert (await session.call_tool(ENABLE_TOOL, {"toolsets": [name]})).isError is False
            listed = {t.name for t in (await session.list_tools()).tools}
            assert set(members) <= listed, name
            reachable |= listed
    assert reachable == {e.id for e in TOOLS} | {WAIT_TOOL, ENABLE_TOOL}  # each with its route: test_mcp_drift
