"""An SDK client session over streamable HTTP against the gateway and the fake REST API, as an agent."""

from __future__ import annotations

import itertools

import httpx
from launchpod.contracts.catalog_ops import TOOLS
from mcp import types

from mcp_gateway.schemas import OUTPUT_SCHEMAS_META
from mcp_gateway.server import build_asgi_app
from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import ENABLE_TOOL
from tests.mcp_gateway.support import ACCEPT, INITIALIZE, Live, mcp_session

_names = itertools.count(1)


def _cluster_name() -> str:
    return f"agent-{next(_names)}"


async def test_every_catalog_tool_is_found_in_the_first_list_and_reached_with_one_call(live: Live) -> None:
    """The session starts with the core (every read, the operations tools); each other tool is named in
    enable_toolsets' description, and one call to it lists the tool (the client is told the list changed)."""
    told: list[str] = []
    async with mcp_session(live.url, live.tokens["viewer"], told=told) as session:
        first = {t.name: t for t in (await session.list_tools()).tools}
        hidden = {e.id for e in TOOLS} - set(first)
        named = first[ENABLE_TOOL].description or ""
        assert hidden and [t for t in hidden if t not in named] == []
        assert {e.id for e in TOOLS if not e.mutates} | {WAIT_TOOL} <= set(first)

        jobs = await session.call_tool(ENABLE_TOOL, {"toolsets": ["jobs"]})
        assert jobs.isError is False and "submit_job" in (jobs.structuredContent or {})["added"]
        assert told.count("notifications/tools/list_changed") == 1
        after = {t.name for t in (await session.list_tools()).tools}
        assert "submit_job" in after and "create_endpoint" not in after

        unknown = await session.call_tool(ENABLE_TOOL, {"toolsets": ["gpus"]})
        assert unknown.isError is True and "No toolset gpus; toolsets: " in unknown.content[0].text  # type: ignore[union-attr]

        await session.call_tool(ENABLE_TOOL, {"toolsets": ["all"]})
        every = {t.name for t in (await session.list_tools()).tools}
        prompts = (await session.list_prompts()).prompts
        resources = (await session.list_resources()).resources
    assert every == {e.id for e in TOOLS} | {WAIT_TOOL}  # nothing left to enable: no enable_toolsets
    assert {p.name for p in prompts} >= {"create-cluster", "diagnose-node", "diagnose-nccl"}
    assert {str(r.uri) for r in resources} == {f"launchpod://skills/{p.name}" for p in prompts}


async def test_a_tool_called_by_name_while_hidden_runs_and_is_listed_from_then_on(live: Live) -> None:
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        assert "delete_job" not in {t.name for t in (await session.list_tools()).tools}
        result = await session.call_tool("delete_job", {"cluster": "nowhere", "jobName": "j", "dryRun": True})
        listed = {t.name for t in (await session.list_tools()).tools}
    assert (result.structuredContent or {}).get("status") == 403  # the API answered it: a viewer may not
    assert "delete_job" in listed


async def test_read_tool_returns_the_rest_response_with_the_callers_token(live: Live) -> None:
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        result = await session.call_tool("list_availability_zones", {})
    assert result.isError is False
    assert [z["name"] for z in (result.structuredContent or {})["items"]][:2] == ["us-east-1a", "us-east-1b"]
    assert ("GET", "/api/catalog/availability-zones", "Bearer viewer-token") in live.fake.calls


async def test_create_cluster_playbook_as_a_scripted_agent(live: Live) -> None:
    name = _cluster_name()
    told: list[str] = []
    async with mcp_session(live.url, live.tokens["admin"], told=told) as session:
        prompt = await session.get_prompt("create-cluster", {"cluster": name})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "list_clusters" in text and "provision_cluster" in text and "wait_for_operation" in text
        # the playbook brought the toolsets of its steps: no enable_toolsets call needed
        assert "notifications/tools/list_changed" in told
        assert {"provision_cluster", "buy_training_plan"} <= {t.name for t in (await session.list_tools()).tools}

        # inspect
        clusters = await session.call_tool("list_clusters", {})
        assert name not in {c["name"] for c in (clusters.structuredContent or {})["items"]}
        zones = await session.call_tool("list_availability_zones", {})
        types_ = await session.call_tool("list_instance_types", {"availabilityZone": "us-east-1a"})
        offered = {i["instanceType"] for i in (types_.structuredContent or {})["items"]}
        assert "ml.p5.48xlarge" in offered
        chosen = [z["name"] for z in (zones.structuredContent or {})["items"]][:2]

        # one operation for the whole cluster
        group = {"instanceGroup": "gpu-workers", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}
        provision = {
            "cluster": name,
            "availabilityZones": chosen,
            "hyperpod": {"availabilityZone": chosen[0], "instanceGroups": [group]},
        }
        accepted = await session.call_tool("provision_cluster", provision)
        assert accepted.isError is False, accepted.content
        body = accepted.structuredContent or {}
        assert (body["status"], body["statusTool"]) == ("ACCEPTED", "get_operation")
        assert body["operation"]["request"]["cluster"] == name  # the REST body names it `cluster` too

        # wait to SUCCEEDED, with progress notifications naming each phase
        progress: list[tuple[float, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, message))

        done = await session.call_tool(
            WAIT_TOOL,
            {"operationId": body["operation"]["id"], "timeoutSeconds": 30},
            progress_callback=on_progress,
        )
        assert done.isError is False
        assert (done.structuredContent or {})["status"] == "SUCCEEDED"
        phases = [p["name"] for p in (done.structuredContent or {})["operation"]["phases"]]
        assert progress and progress[-1][0] == float(len(phases))
        assert [d for d, _ in progress] == sorted({d for d, _ in progress})  # rising, no repeats
        said = " ".join(m or "" for _, m in progress)
        assert all(f"{p} SUCCEEDED" in said for p in phases), said
        assert said.endswith("operation SUCCEEDED")

        cluster = await session.call_tool("get_cluster", {"cluster": name})
        assert (cluster.structuredContent or {})["eks"]["status"] == "ACTIVE"


async def test_output_schemas_come_to_a_client_that_asks_and_its_results_validate(live: Live) -> None:
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        plain = (await session.list_tools()).tools
        assert all(t.outputSchema is None for t in plain)
        asked = types.PaginatedRequestParams(_meta={OUTPUT_SCHEMAS_META: True})  # type: ignore[call-arg]
        tools = (await session.list_tools(params=asked)).tools
        assert all(t.outputSchema and t.outputSchema["type"] == "object" for t in tools if t.name != ENABLE_TOOL)
        # the SDK client now validates structured results against them (it raises on a mismatch)
        result = await session.call_tool("list_availability_zones", {})
    assert result.isError is False and (result.structuredContent or {})["items"]


async def test_rest_422_is_a_tool_error_with_message_and_field(live: Live) -> None:
    async with mcp_session(live.url, live.tokens["admin"]) as session:
        result = await session.call_tool("create_cluster", {"cluster": "Bad_Name", "availabilityZones": ["us-east-1a"]})
    assert result.isError is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert "- body.cluster:" in text and "body.availabilityZones" in text and "HTTP 422" in text
    assert "body.name" not in text  # the agent called it cluster; so does the REST body, and the answer
    error = (result.structuredContent or {})["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert {d["field"] for d in error["details"]} == {"body.cluster", "body.availabilityZones"}
    assert text.splitlines()[0] == error["message"]


async def test_viewer_token_cannot_mutate(live: Live) -> None:
    name = _cluster_name()
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        result = await session.call_tool(
            "create_cluster", {"cluster": name, "availabilityZones": ["us-east-1a", "us-east-1b"]}
        )
    assert result.isError is True
    assert (result.structuredContent or {})["status"] == 403
    assert "needs the admin role" in result.content[0].text  # type: ignore[union-attr]
    assert name not in live.fake.clusters


async def test_no_token_is_refused_at_the_door(live: Live) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{live.url}/mcp", json=INITIALIZE, headers=ACCEPT)
        basic = {**ACCEPT, "Authorization": "Basic x"}
        wrong_scheme = await http.post(f"{live.url}/mcp", json=INITIALIZE, headers=basic)
    assert response.status_code == 401 and wrong_scheme.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["code"] == "UNAUTHORIZED"


async def test_an_invalid_token_reaches_rest_and_comes_back_as_401(live: Live) -> None:
    async with mcp_session(live.url, "not-a-token") as session:
        result = await session.call_tool("list_clusters", {})
    assert result.isError and (result.structuredContent or {})["status"] == 401


async def test_prompt_and_resource_carry_the_versioned_playbook(live: Live) -> None:
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        listed = {p.name: p for p in (await session.list_prompts()).prompts}
        resource = await session.read_resource("launchpod://skills/diagnose-node")  # type: ignore[arg-type]
    assert "(playbook v1.1.0)" in (listed["diagnose-node"].description or "")
    content = resource.contents[0]
    assert isinstance(content, types.TextResourceContents) and content.mimeType == "text/markdown"
    assert "launchpod skill diagnose-node v1.1.0" in content.text
    assert "Not offered by this Launchpod server yet" not in content.text  # every tool it names exists
    async with mcp_session(live.url, live.tokens["viewer"]) as session:
        jobs = await session.read_resource("launchpod://skills/submit-training-job")  # type: ignore[arg-type]
    # the training playbook names only tools the server offers
    text = jobs.contents[0].text  # type: ignore[union-attr]
    assert "launchpod skill submit-training-job v2.1.0" in text
    assert "Not offered by this Launchpod server yet" not in text and "`submit_job`" in text


async def test_host_that_does_not_run_the_lifespan_gets_a_clear_503() -> None:
    app = build_asgi_app("http://api.test")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as http:
        response = await http.post("/mcp", json={}, headers={"Authorization": "Bearer t"})
        health = await http.get("/healthz")
    assert response.status_code == 503 and "lifespan" in response.json()["message"]
    assert health.status_code == 503


async def test_standalone_app_serves_health_once_started() -> None:
    app = build_asgi_app("http://api.test")
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as http,
    ):
        health = await http.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"
