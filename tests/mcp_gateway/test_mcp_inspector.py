"""The official MCP Inspector CLI lists the gateway's tools (the same check CI runs).

``make`` installs it with ``npm ci --prefix mcp_gateway``; a missing install fails the test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from launchpod.contracts.catalog_ops import TOOLS

from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import ENABLE_TOOL
from tests.mcp_gateway.support import Live

INSPECTOR = Path(__file__).resolve().parents[2] / "mcp_gateway" / "node_modules" / ".bin" / "mcp-inspector"


def _inspector(live: Live, method: str, *args: str, role: str | None = "viewer") -> subprocess.CompletedProcess[str]:
    """The Inspector's CLI calling ``method`` on the gateway over Streamable HTTP, as ``role`` (None: no token)."""
    # `make test` installs it; without it this check would prove nothing, so it fails.
    assert INSPECTOR.exists(), f"{INSPECTOR} is missing: run `npm ci --prefix mcp_gateway` (make test does)"
    command = [str(INSPECTOR), "--cli", f"{live.url}/mcp", "--transport", "http", "--method", method, *args]
    if role:
        command += ["--header", f"Authorization: Bearer {live.tokens[role]}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_inspector_cli_lists_the_tools(live: Live) -> None:
    # --strict: fail (exit 6) on schemas other clients could not use; the header lists every toolset's tools
    run = _inspector(live, "tools/list", "--strict", "--header", "X-MCP-Toolsets: all")
    assert run.returncode == 0, run.stderr
    tools = json.loads(run.stdout)["tools"]
    assert {t["name"] for t in tools} == {e.id for e in TOOLS} | {WAIT_TOOL}
    create = next(t for t in tools if t["name"] == "create_cluster")
    assert create["annotations"]["readOnlyHint"] is False
    assert "get_operation" in create["description"]


def test_inspector_cli_lists_the_core_and_the_toolsets_tool_by_default(live: Live) -> None:
    run = _inspector(live, "tools/list", "--strict")
    assert run.returncode == 0, run.stderr
    names = {t["name"] for t in json.loads(run.stdout)["tools"]}
    assert {"list_clusters", WAIT_TOOL, ENABLE_TOOL} <= names and "create_cluster" not in names


def test_inspector_cli_calls_a_read_tool(live: Live) -> None:
    run = _inspector(
        live, "tools/call", "--tool-name", "list_instance_types", "--tool-arg", "availabilityZone=us-east-1c"
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["isError"] is False
    assert [i["instanceType"] for i in result["structuredContent"]["items"]] == ["ml.g5.8xlarge"]


def test_inspector_cli_without_a_token_fails(live: Live) -> None:
    run = _inspector(live, "tools/list", role=None)
    assert run.returncode != 0
