"""The MCP gateway end to end through the running sandbox, with the SDK's client over streamable HTTP.

An agent's view: list tools and prompts, call a read tool, follow the create-cluster playbook (its prompt
lists provision_cluster's toolset; inspect → provision_cluster → wait to SUCCEEDED, told each phase), get a
422 back as a tool error, and find that a viewer's token cannot mutate. The MCP Inspector CLI lists the same
tools, as CI requires.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from launchpod.contracts.catalog_ops import BY_ID, TOOLS
from mcp import types

from mcp_gateway.schemas import OUTPUT_SCHEMAS_META
from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import ENABLE_TOOL
from tests.mcp_gateway.support import ACCEPT, INITIALIZE, mcp_session
from tests.sandbox.http_support import TLS

pytestmark = pytest.mark.e2e

INSPECTOR = Path(__file__).resolve().parents[2] / "mcp_gateway" / "node_modules" / ".bin" / "mcp-inspector"
TOOL_NAMES = {e.id for e in TOOLS} | {WAIT_TOOL}
EVERY_TOOLSET = {"X-MCP-Toolsets": "all"}


def _data(result: Any) -> dict[str, Any]:
    assert result.structuredContent is not None, result
    return dict(result.structuredContent)


async def test_agent_lists_one_tool_per_rest_operation_and_the_playbooks(sandbox: Any) -> None:
    async with mcp_session(sandbox.url, sandbox.tokens["viewer"], headers=EVERY_TOOLSET) as session:
        tools = (await session.list_tools()).tools
        prompts = {p.name for p in (await session.list_prompts()).prompts}
    assert {t.name for t in tools} == TOOL_NAMES
    assert {"create-cluster", "diagnose-cluster-creation", "diagnose-node", "diagnose-nccl"} <= prompts
    read_only = {t.name for t in tools if t.annotations and t.annotations.readOnlyHint}
    assert read_only == {e.id for e in TOOLS if not e.mutates} | {WAIT_TOOL}


async def test_tools_and_the_rest_api_cannot_drift(sandbox: Any) -> None:
    """Every operation the REST API documents is a tool with the same method and path (but the OpenAI-compatible
    routes, which OpenAI SDKs call), and no more."""
    with httpx.Client(base_url=sandbox.url, headers=sandbox.headers("viewer"), timeout=30, verify=TLS) as rest:
        answer = rest.get("/api/openapi.json")
    assert answer.status_code == 200, answer.text[:300]
    spec = answer.json()
    documented = {
        op["operationId"]: (method.upper(), path)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op and BY_ID[op["operationId"]].tool
    }
    async with mcp_session(sandbox.url, sandbox.tokens["viewer"], headers=EVERY_TOOLSET) as session:
        # the REST route comes with the output schemas, to a client that asks
        asked = types.PaginatedRequestParams(_meta={OUTPUT_SCHEMAS_META: True})  # type: ignore[call-arg]
        tools = (await session.list_tools(params=asked)).tools
    offered = {
        t.name: (t.meta["launchpod/rest"]["method"], t.meta["launchpod/rest"]["path"])
        for t in tools
        if t.meta and t.meta.get("launchpod/rest")
    }
    assert offered == documented


async def test_read_tool_answers_what_rest_answers(sandbox: Any) -> None:
    async with mcp_session(sandbox.url, sandbox.tokens["viewer"]) as session:
        result = await session.call_tool("list_availability_zones", {})
    assert result.isError is False
    with httpx.Client(base_url=sandbox.url, headers=sandbox.headers("viewer"), verify=TLS) as rest:
        assert _data(result) == rest.get("/api/catalog/availability-zones").json()


async def test_scripted_agent_follows_the_create_cluster_playbook_to_succeeded(sandbox: Any) -> None:
    """The whole create-cluster playbook as an agent runs it: three reads, a dry run, one provision_cluster,
    wait_for_operation to SUCCEEDED with progress notifications naming each phase, then get_cluster."""
    name = "mcp-agent-1"
    told: list[str] = []
    async with mcp_session(sandbox.url, sandbox.tokens["admin"], told=told) as session:
        assert "provision_cluster" not in {t.name for t in (await session.list_tools()).tools}
        playbook = await session.get_prompt("create-cluster", {"cluster": name})
        text = playbook.messages[0].content.text  # type: ignore[union-attr]
        assert "provision_cluster" in text and "wait_for_operation" in text and f"cluster={name}" in text
        # the playbook listed the tools its steps call, and told the client so
        assert "notifications/tools/list_changed" in told
        assert "provision_cluster" in {t.name for t in (await session.list_tools()).tools}

        # inspect before creating
        existing = {c["name"] for c in _data(await session.call_tool("list_clusters", {}))["items"]}
        assert name not in existing
        zones = [z["name"] for z in _data(await session.call_tool("list_availability_zones", {}))["items"]]
        offered = _data(await session.call_tool("list_instance_types", {"availabilityZone": zones[0]}))["items"]
        assert zones and offered

        # one operation for the whole cluster, previewed first
        chosen = next((t for t in offered if t["instanceType"] == "ml.m5.2xlarge"), offered[0])
        group = {"name": "workers", "instanceType": chosen["instanceType"], "instanceCount": 1}
        provision = {
            "cluster": name,
            "availabilityZones": zones[:2],
            "hyperpod": {"availabilityZone": zones[0], "instanceGroups": [group]},
            "storage": {"kind": "s3", "storageName": "shared"},
        }
        plan = _data(await session.call_tool("provision_cluster", {**provision, "dryRun": True}))
        assert plan["status"] == "PLANNED" and plan["steps"], plan
        accepted = await session.call_tool("provision_cluster", provision)
        assert accepted.isError is False, accepted.content
        body = _data(accepted)
        assert (body["status"], body["statusTool"]) == ("ACCEPTED", "get_operation")
        assert body["operation"]["kind"] == "provision-cluster"

        # monitor to a terminal state, calling again while it is not terminal (bounded waits)
        said: list[tuple[float, str]] = []
        rises: list[list[float]] = []  # per wait call: MCP wants each progress token's values to rise

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            said.append((done, message or ""))
            rises[-1].append(done)

        for _ in range(10):
            rises.append([])
            waited = _data(
                await session.call_tool(
                    WAIT_TOOL,
                    {"operationId": body["operation"]["id"], "timeoutSeconds": 60},
                    progress_callback=on_progress,
                )
            )
            if waited["terminal"]:
                break
        assert waited["status"] == "SUCCEEDED", waited["summary"]
        phases = waited["operation"]["phases"]
        assert all(p["status"] in ("SUCCEEDED", "SKIPPED") for p in phases)

        # each phase's end was told by name with its status; progress only rose
        told = " ".join(m for _, m in said)
        untold = [p["name"] for p in phases if f"{p['name']} {p['status']}" not in told]
        assert untold == [], told
        assert "RUNNING" in told and told.endswith("operation SUCCEEDED")
        assert all(values == sorted(set(values)) for values in rises), rises

        cluster = _data(await session.call_tool("get_cluster", {"cluster": name}))
        storage = _data(await session.call_tool("list_storage", {"cluster": name}))["items"]
    assert cluster["eks"]["status"] == "ACTIVE" and cluster["hyperpod"]["status"] == "InService"
    assert [s["storageName"] for s in storage] == ["shared"]


async def test_rest_422_comes_back_as_a_tool_error_with_message_and_field(sandbox: Any) -> None:
    bad = {"cluster": "not a valid name", "availabilityZones": ["us-east-1a", "us-east-1b"]}
    async with mcp_session(sandbox.url, sandbox.tokens["admin"]) as session:
        result = await session.call_tool("create_cluster", bad)  # the REST body's own names: its answer, verbatim
        renamed = await session.call_tool(
            "create_cluster", {"cluster": bad["cluster"], "availabilityZones": ["us-east-1a"]}
        )
    with httpx.Client(base_url=sandbox.url, headers=sandbox.headers("admin"), verify=TLS) as rest:
        direct = rest.post("/api/clusters", json=bad)
    assert direct.status_code == 422
    envelope = direct.json()
    assert result.isError is True
    error = _data(result)["error"]
    assert (error["code"], error["message"]) == (envelope["code"], envelope["message"])
    assert [d["field"] for d in error["details"]] == [d["field"] for d in envelope["details"]]
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(envelope["message"]) and envelope["details"][0]["field"] in text
    # an agent that said `cluster` reads `cluster` in the answer (the body calls it so too), never name
    fields = [d["field"] for d in _data(renamed)["error"]["details"]]
    assert "body.cluster" in fields and "body.name" not in fields
    assert "body.name" not in renamed.content[0].text  # type: ignore[union-attr]


async def test_viewer_token_cannot_mutate_through_the_gateway(sandbox: Any) -> None:
    async with mcp_session(sandbox.url, sandbox.tokens["viewer"]) as session:
        result = await session.call_tool(
            "create_cluster", {"cluster": "mcp-viewer-denied", "availabilityZones": ["us-east-1a", "us-east-1b"]}
        )
        clusters = _data(await session.call_tool("list_clusters", {}))["items"]
    assert result.isError is True and _data(result)["status"] == 403
    assert "mcp-viewer-denied" not in {c["name"] for c in clusters}


def test_without_a_token_the_mcp_endpoint_refuses(sandbox: Any) -> None:
    response = httpx.post(f"{sandbox.url}/mcp", json=INITIALIZE, headers=ACCEPT, timeout=30)
    assert response.status_code == 401


def test_mcp_inspector_cli_lists_the_tools(sandbox: Any) -> None:
    # `make test` installs it; without it this check would prove nothing, so it fails.
    assert INSPECTOR.exists(), f"{INSPECTOR} is missing: run `npm ci --prefix mcp_gateway` (make test does)"
    run = subprocess.run(
        [
            str(INSPECTOR),
            "--cli",
            f"{sandbox.url}/mcp",
            "--transport",
            "http",
            "--method",
            "tools/list",
            "--header",
            f"Authorization: Bearer {sandbox.tokens['viewer']}",
            "--header",
            "X-MCP-Toolsets: all",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert {t["name"] for t in json.loads(run.stdout)["tools"]} == TOOL_NAMES


async def _wait(session: Any, operation_id: str) -> dict[str, Any]:
    for _ in range(10):
        waited = _data(await session.call_tool(WAIT_TOOL, {"operationId": operation_id, "timeoutSeconds": 60}))
        if waited["terminal"]:
            return waited
    raise AssertionError(f"{operation_id} did not finish: {waited['summary']}")


async def test_scripted_agent_runs_the_rest_of_the_pipeline_with_the_tools_offered(sandbox: Any) -> None:
    """Control plane → dependencies → HyperPod, each stage monitored to SUCCEEDED, as the playbook says."""
    name = "mcp-agent-2"
    async with mcp_session(sandbox.url, sandbox.tokens["admin"]) as session:
        # an agent without a playbook: one call lists the clusters toolset's tools
        enabled = await session.call_tool(ENABLE_TOOL, {"toolsets": ["clusters"]})
        assert enabled.isError is False, enabled.content
        offered = {t.name for t in (await session.list_tools()).tools}
        assert {"create_cluster", "reconcile_dependencies", "create_hyperpod"} <= offered
        zones = [z["name"] for z in _data(await session.call_tool("list_availability_zones", {}))["items"]]
        types_ = _data(await session.call_tool("list_instance_types", {}))["items"]
        accepted = _data(await session.call_tool("create_cluster", {"cluster": name, "availabilityZones": zones[:2]}))
        assert (await _wait(session, accepted["operation"]["id"]))["status"] == "SUCCEEDED"

        if "reconcile_dependencies" in offered:
            deps = await session.call_tool("reconcile_dependencies", {"cluster": name})
            assert deps.isError is False, deps.content
            if _data(deps)["status"] == "ACCEPTED":
                waited = await _wait(session, _data(deps)["operation"]["id"])
                assert waited["status"] == "SUCCEEDED", waited["summary"]

        if "create_hyperpod" in offered:
            gpu = next(t for t in types_ if set(t["availabilityZones"]) & set(zones[:2]))
            zone = next(z for z in zones[:2] if z in gpu["availabilityZones"])
            group = {"name": "gpu-workers", "instanceType": gpu["instanceType"], "instanceCount": 1}
            hyperpod = await session.call_tool(
                "create_hyperpod", {"cluster": name, "availabilityZone": zone, "instanceGroups": [group]}
            )
            assert hyperpod.isError is False, hyperpod.content
            waited = await _wait(session, _data(hyperpod)["operation"]["id"])
            assert waited["status"] == "SUCCEEDED", waited["summary"]
            cluster = _data(await session.call_tool("get_cluster", {"cluster": name}))
            assert cluster["hyperpod"]["status"] == "InService"


async def test_scripted_agent_toggles_a_managed_feature_with_the_playbook(sandbox: Any) -> None:
    """The managed-features playbook: inspect, preview the plan (dryRun), change, monitor, confirm; the same
    change again is NOOP. Runs on the cluster the pipeline test above brought to InService."""
    name = "mcp-agent-2"
    async with mcp_session(sandbox.url, sandbox.tokens["admin"]) as session:
        playbook = await session.get_prompt("managed-features", {"cluster": name})
        text = playbook.messages[0].content.text  # type: ignore[union-attr]
        assert "list_features" in text and "update_features" in text

        cluster = _data(await session.call_tool("get_cluster", {"cluster": name}))
        assert cluster["hyperpod"]["status"] == "InService", "the pipeline test provisions this cluster first"
        before = {f["name"]: f for f in _data(await session.call_tool("list_features", {"cluster": name}))["items"]}
        assert before["tieredCheckpointing"]["enabled"] is False

        change = {"cluster": name, "tieredCheckpointing": {"enabled": True}}
        plan = _data(await session.call_tool("update_features", {**change, "dryRun": True}))
        assert plan["status"] == "PLANNED" and len(plan["steps"]) == 3, plan
        accepted = _data(await session.call_tool("update_features", change))
        assert accepted["status"] == "ACCEPTED", accepted
        assert len(accepted["operation"]["plan"]) == 3
        assert (await _wait(session, accepted["operation"]["id"]))["status"] == "SUCCEEDED"

        after = {f["name"]: f for f in _data(await session.call_tool("list_features", {"cluster": name}))["items"]}
        assert after["tieredCheckpointing"]["enabled"] is True
        assert after["tieredCheckpointing"]["settings"]["memoryPercentage"] == 20
        again = _data(await session.call_tool("update_features", change))
        assert again["status"] == "NOOP", again
