"""stdio: the gateway as a child process of the agent, with the token from its environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from launchpod.contracts.catalog_ops import TOOLS
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import ENABLE_TOOL, is_core
from tests.mcp_gateway.support import Live


def _params(live: Live, token: str | None, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAUNCHPOD_")}
    if token:
        env["LAUNCHPOD_TOKEN"] = token
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_gateway.cli", "--stdio", "--api-url", live.url, *extra],
        env=env,
    )


async def test_stdio_lists_tools_and_calls_rest_with_the_env_token(live: Live) -> None:
    async with (
        stdio_client(_params(live, live.tokens["operator"])) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        result = await session.call_tool("list_clusters", {})
    assert tools == {e.id for e in TOOLS if is_core(e)} | {WAIT_TOOL, ENABLE_TOOL}
    assert result.isError is False
    assert ("GET", "/api/clusters", "Bearer operator-token") in live.fake.calls


async def test_stdio_token_flag_wins_and_no_token_refuses_every_call(live: Live) -> None:
    async with (
        stdio_client(_params(live, None)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        refused = await session.call_tool("list_clusters", {})
    assert refused.isError is True
    assert "--token or LAUNCHPOD_TOKEN" in refused.content[0].text  # type: ignore[union-attr]

    # --toolsets all: for a client that ignores tools/list_changed, every tool from the start
    async with (
        stdio_client(_params(live, None, "--token", live.tokens["viewer"], "--toolsets", "all")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        allowed = await session.call_tool("health", {})
        every = {t.name for t in (await session.list_tools()).tools}
    assert allowed.isError is False and (allowed.structuredContent or {})["status"] == "ok"
    assert every == {e.id for e in TOOLS} | {WAIT_TOOL}


async def test_the_command_the_agent_configs_run_serves_stdio(live: Live) -> None:
    launchpod = Path(sys.executable).with_name("launchpod")
    assert launchpod.exists(), "the launchpod console script is missing: pip install -e . (make test does)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAUNCHPOD_")}
    env |= {"LAUNCHPOD_API_URL": live.url, "LAUNCHPOD_TOKEN": live.tokens["viewer"]}
    params = StdioServerParameters(command=str(launchpod), args=["mcp", "--stdio"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("list_clusters", {})
    assert result.isError is False
