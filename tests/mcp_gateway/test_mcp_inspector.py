"""The official MCP Inspector CLI lists the gateway's tools (the same check CI runs).

``make`` installs it with ``npm ci --prefix mcp_gateway``; a missing install fails the test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from launchpod.contracts.catalog_ops import TOOLS

from mcp_gateway.tools import WAIT_TOOL
from tests.mcp_gateway.support import Live

INSPECTOR = Path(__file__).resolve().parents[2] / "mcp_gateway" / "node_modules" / ".bin" / "mcp-inspector"


def _inspector(*args: str) -> subprocess.CompletedProcess[str]:
    # `make test` installs it; without it this check would prove nothing, so it fails.
    assert INSPECTOR.exists(), f"{INSPECTOR} is missing: run `npm ci --prefix mcp_gateway` (make test does)"
    return subprocess.run([str(INSPECTOR), "--cli", *args], capture_output=True, text=True, timeout=120, check=False)


def test_inspector_cli_lists_the_tools(live: Live) -> None:
    run = _inspector(
        f"{live.url}/mcp",
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--strict",  # fail (exit 6) on tool schemas other clients could not use
        "--header",
        f"Authorization: Bearer {live.tokens['viewer']}",
    )
    assert run.returncode == 0, run.stderr
    tools = json.loads(run.stdout)["tools"]
    assert {t["name"] for t in tools} == {e.id for e in TOOLS} | {WAIT_TOOL}
    create = next(t for t in tools if t["name"] == "create_cluster")
    assert create["annotations"]["readOnlyHint"] is False
    assert "get_operation" in create["description"]


def test_inspector_cli_calls_a_read_tool(live: Live) -> None:
    run = _inspector(
        f"{live.url}/mcp",
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "list_instance_types",
        "--tool-arg",
        "zone=us-east-1c",
        "--header",
        f"Authorization: Bearer {live.tokens['viewer']}",
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["isError"] is False
    assert [i["instanceType"] for i in result["structuredContent"]["items"]] == ["ml.g5.8xlarge"]


def test_inspector_cli_without_a_token_fails(live: Live) -> None:
    run = _inspector(f"{live.url}/mcp", "--transport", "http", "--method", "tools/list")
    assert run.returncode != 0
