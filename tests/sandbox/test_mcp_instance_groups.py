"""An MCP client session follows the add-instance-group playbook through the running sandbox: inspect,
add a Spot group, wait to SUCCEEDED, scale it by an explicit diff, and see NOOP when nothing changes."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_gateway.tools import WAIT_TOOL
from tests.mcp_gateway.support import mcp_session

pytestmark = pytest.mark.e2e
NAME = "mcp-groups"


def _data(result: Any) -> dict[str, Any]:
    assert result.isError is False, result.content
    assert result.structuredContent is not None, result
    return dict(result.structuredContent)


async def _wait(session: Any, operation_id: str) -> dict[str, Any]:
    for _ in range(10):
        waited = _data(await session.call_tool(WAIT_TOOL, {"operationId": operation_id, "timeoutSeconds": 60}))
        if waited["terminal"]:
            return waited
    return waited


async def test_agent_adds_and_scales_a_group_with_the_playbook_tools(sandbox: Any) -> None:
    provision = {
        "cluster": NAME,
        "availabilityZones": ["us-east-1a", "us-east-1b"],
        "hyperpod": {
            "availabilityZone": "us-east-1a",
            "instanceGroups": [{"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1}],
        },
    }
    async with mcp_session(sandbox.url, sandbox.tokens["admin"]) as session:
        prompts = {p.name for p in (await session.list_prompts()).prompts}
        assert "add-instance-group" in prompts
        playbook = await session.get_prompt("add-instance-group", {"cluster": NAME})
        text = playbook.messages[0].content.text  # type: ignore[union-attr]
        assert "Not offered" not in text  # every tool the playbook names is served now
        made = _data(await session.call_tool("provision_cluster", provision))
        assert (await _wait(session, made["operation"]["id"]))["status"] == "SUCCEEDED"

        # inspect before adding
        cluster = _data(await session.call_tool("get_cluster", {"cluster": NAME}))
        assert cluster["hyperpod"]["status"] == "InService" and not cluster.get("activeOperationId")
        groups = _data(await session.call_tool("list_instance_groups", {"cluster": NAME}))["items"]
        assert [g["instanceGroup"] for g in groups] == ["system"]
        offered = _data(await session.call_tool("list_instance_types", {"availabilityZone": "us-east-1a"}))["items"]
        assert "ml.p5.48xlarge" in {t["instanceType"] for t in offered}

        added = _data(
            await session.call_tool(
                "add_instance_group",
                {
                    "cluster": NAME,
                    "group": "spot",
                    "instanceType": "ml.p5.48xlarge",
                    "instanceCount": 1,
                    "capacityType": "spot",
                },
            )
        )
        assert added["statusTool"] == "get_operation" and any("threadsPerCore" in n for n in added["notes"])
        waited = await _wait(session, added["operation"]["id"])
        assert waited["status"] == "SUCCEEDED", waited

        scaled = _data(
            await session.call_tool("update_instance_group", {"cluster": NAME, "group": "spot", "instanceCount": 2})
        )
        waited = await _wait(session, scaled["operation"]["id"])
        assert waited["status"] == "SUCCEEDED", waited
        again = _data(
            await session.call_tool("update_instance_group", {"cluster": NAME, "group": "spot", "instanceCount": 2})
        )
        assert again["status"] == "NOOP"

        fixed = await session.call_tool(
            "update_instance_group", {"cluster": NAME, "group": "spot", "capacityType": "onDemand"}
        )
        assert fixed.isError is True and "add a new instance group" in fixed.content[0].text  # type: ignore[union-attr]

        groups = {
            g["instanceGroup"]: g
            for g in _data(await session.call_tool("list_instance_groups", {"cluster": NAME}))["items"]
        }
    assert (groups["spot"]["capacityType"], groups["spot"]["currentCount"], groups["spot"]["targetCount"]) == (
        "spot",
        2,
        2,
    )
    assert groups["system"]["targetCount"] == 1


async def test_agent_searches_capacity_then_buys_and_extends_a_plan_only_at_the_price_it_was_shown(
    sandbox: Any,
) -> None:
    """The create-cluster playbook's capacity step through MCP: search offerings, a dry run that names the upfront
    price and buys nothing, the purchase at that price, the plan read back, and an extension the same way."""
    search = {"instanceType": "ml.p5.48xlarge", "instanceCount": 1, "durationHours": 24}
    async with mcp_session(sandbox.url, sandbox.tokens["admin"]) as session:
        offers = _data(await session.call_tool("search_training_plan_offerings", search))["items"]
        offering = offers[0]
        fee = offering["upfrontFee"]
        buy = {**search, "name": "mcp-plan", "offeringId": offering["offeringId"], "confirmPrice": fee}
        dry = _data(await session.call_tool("buy_training_plan", {**buy, "dryRun": True}))
        assert f"{fee} USD" in dry["steps"][0]["reason"]
        missing = await session.call_tool("get_training_plan", {"plan": "mcp-plan"})
        assert missing.isError is True  # the dry run bought nothing
        bought = _data(await session.call_tool("buy_training_plan", buy))
        assert (bought["name"], bought["upfrontFee"]) == ("mcp-plan", fee)
        listed = _data(await session.call_tool("list_training_plans", {}))["items"]
        assert [p["name"] for p in listed].count("mcp-plan") == 1

        extensions = _data(await session.call_tool("search_training_plan_extensions", {"plan": "mcp-plan"}))["items"]
        day = next(o for o in extensions if o["durationHours"] == 24)
        extend = {"plan": "mcp-plan", "offeringId": day["offeringId"], "confirmPrice": day["upfrontFee"]}
        planned = _data(await session.call_tool("extend_training_plan", {**extend, "dryRun": True}))
        assert f"{day['upfrontFee']} USD" in planned["steps"][0]["reason"]
        extended = _data(await session.call_tool("extend_training_plan", extend))
        assert extended["endTime"] == day["endDate"]
        seen = _data(await session.call_tool("get_training_plan", {"plan": "mcp-plan"}))
    assert seen["endTime"] == day["endDate"] and seen["status"] in ("Active", "Scheduled")
