"""Agent configs: Kiro auto-approves read-only tools only; Claude Code starts the gateway with your token."""

from __future__ import annotations

import json
import re
from fnmatch import fnmatchcase
from pathlib import Path

from launchpod.contracts.catalog_ops import TOOLS

from mcp_gateway.skills import load
from mcp_gateway.tools import list_tools
from mcp_gateway.toolsets import Toolsets

ROOT = Path(__file__).resolve().parents[2]
# every tool a session can list: the catalog's, wait_for_operation, and enable_toolsets
LISTED = [*list_tools(), Toolsets(TOOLS).enable_tool()]
READ_ONLY = {t.name for t in LISTED if t.annotations and t.annotations.readOnlyHint}
MUTATING = {t.name for t in LISTED} - READ_ONLY


def _kiro() -> dict:
    return json.loads((ROOT / ".kiro" / "agents" / "launchpod.json").read_text())


def _auto_approved(patterns: list[str], tools: set[str]) -> set[str]:
    prefix = "@launchpod/"
    return {t for t in tools for p in patterns if p.startswith(prefix) and fnmatchcase(t, p.removeprefix(prefix))}


def test_kiro_agent_auto_approves_every_read_only_tool() -> None:
    assert _auto_approved(_kiro()["allowedTools"], READ_ONLY) == READ_ONLY


def test_kiro_agent_never_auto_approves_a_mutating_tool() -> None:
    allowed = _kiro()["allowedTools"]
    assert "@launchpod" not in allowed and "*" not in allowed and "@launchpod/*" not in allowed
    assert _auto_approved(allowed, MUTATING) == set()
    # a later catalog entry named like a read tool must be read-only, or the patterns above would approve it
    for entry in TOOLS:
        if re.match(r"(list|get|diagnose)_", entry.id):
            assert not entry.mutates, f"{entry.id} mutates but is named like a read tool"


def test_kiro_agent_runs_the_gateway_over_stdio_with_the_users_token() -> None:
    agent = _kiro()
    server = agent["mcpServers"]["launchpod"]
    assert [server["command"], *server["args"]] == ["launchpod", "mcp", "--stdio"]
    assert server["env"]["LAUNCHPOD_TOKEN"] == "${LAUNCHPOD_TOKEN}"
    assert server["timeout"] > 300_000  # wait_for_operation may take 300 s
    assert agent["tools"] == ["@launchpod"]
    for rule in ("wait_for_operation", "decision-level", "read-only", "never about CIDRs", "enable_toolsets"):
        assert rule in agent["prompt"]


def test_claude_code_mcp_json_starts_the_gateway_with_the_token_from_the_environment() -> None:
    server = json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]["launchpod"]
    assert server["type"] == "stdio"
    assert [server["command"], *server["args"]] == ["launchpod", "mcp", "--stdio"]
    assert server["env"]["LAUNCHPOD_TOKEN"] == "${LAUNCHPOD_TOKEN}"  # never a literal token in the repo


def test_claude_code_agent_names_every_playbook_and_the_rules() -> None:
    text = (ROOT / ".claude" / "agents" / "launchpod.md").read_text()
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert front and "name: launchpod" in front.group(1) and "description:" in front.group(1)
    for skill in load():
        assert f"`{skill.name}`" in text
    flat = " ".join(text.split())
    for rule in (
        "Inspect before creating",
        "decision-level questions",
        "wait_for_operation",
        "read-only",
        "enable_toolsets",
    ):
        assert rule in flat
