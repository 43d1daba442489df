"""Tools mirror the catalog 1:1; calls become the right REST requests; REST errors become tool errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from launchpod.contracts.catalog_ops import BY_ID, TOOLS
from launchpod.contracts.naming import without_older_spellings
from mcp import types

from mcp_gateway.guide import WHEN
from mcp_gateway.rest import RestClient, build_request
from mcp_gateway.schemas import cluster_field
from mcp_gateway.tools import STATUS_TOOL, WAIT_TOOL, ToolRunner, list_tools, output_schema_of

LISTED = {t.name: t for t in list_tools()}
ASKED = {t.name: t for t in list_tools(output_schemas=True)}


def test_there_is_one_tool_per_catalog_operation_plus_the_wait_tool() -> None:
    assert [t.name for t in list_tools()] == [e.id for e in TOOLS] + [WAIT_TOOL]


def _rest_name(entry: Any, field: str) -> str:
    return "name" if field == "cluster" and cluster_field(entry) else field


@pytest.mark.parametrize("entry", TOOLS, ids=lambda e: e.id)
def test_tool_takes_every_field_of_the_rest_request_under_the_same_names_but_cluster(entry: Any) -> None:
    """No capability is lost to the slimmer schema: each REST field is a tool argument, required alike."""
    schema = LISTED[entry.id].inputSchema
    rest = without_older_spellings(entry.input.model_json_schema())  # a deprecated spelling is REST's only
    assert {_rest_name(entry, f) for f in schema["properties"]} == set(rest.get("properties", {}))
    assert {_rest_name(entry, f) for f in schema.get("required", [])} == set(rest.get("required", []))
    # nested objects keep their fields too
    assert set(schema.get("$defs", {})) == set(rest.get("$defs", {}))
    for name, model in rest.get("$defs", {}).items():
        assert set(schema["$defs"][name].get("properties", {})) == set(model.get("properties", {})), name


@pytest.mark.parametrize("entry", [e for e in TOOLS if "{name}" in e.path or e.path.startswith("/api/clusters")])
def test_every_tool_on_a_cluster_calls_it_cluster(entry: Any) -> None:
    properties = LISTED[entry.id].inputSchema["properties"]
    assert "name" not in properties, entry.id
    if "{name}" in entry.path:
        assert "cluster" in LISTED[entry.id].inputSchema["required"]
        # a bare string: the server's instructions say once what `cluster` is, and the API checks its format
        assert properties["cluster"] == {"type": "string"}


@pytest.mark.parametrize("entry", TOOLS, ids=lambda e: e.id)
def test_output_schemas_are_listed_only_when_asked_and_are_the_rest_response_models(entry: Any) -> None:
    assert LISTED[entry.id].outputSchema is None
    schema = ASKED[entry.id].outputSchema
    assert schema is not None and schema["type"] == "object"
    expected = entry.response.model_json_schema(mode="serialization")
    if entry.mutates:  # a mutation may also answer 200 NOOP
        assert {"NoopView", expected["title"]} <= set(schema["$defs"])
    else:
        assert schema == expected


@pytest.mark.parametrize("entry", TOOLS, ids=lambda e: e.id)
def test_annotations_follow_the_catalog_flags(entry: Any) -> None:
    hints = LISTED[entry.id].annotations
    assert hints is not None
    assert hints.readOnlyHint is (not entry.mutates)
    if entry.mutates:  # MCP: destructive and idempotent are meaningful only when readOnlyHint is false
        # a hint left out means MCP's default: destructive true, idempotent false
        assert (hints.destructiveHint is not False) is entry.destructive
        assert bool(hints.idempotentHint) is entry.idempotent
    # the REST route is detail for a client that asks (with the output schemas), not tokens for every agent
    assert LISTED[entry.id].meta is None
    assert ASKED[entry.id].meta == {"launchpod/rest": {"method": entry.method, "path": entry.path}}


@pytest.mark.parametrize("entry", [e for e in TOOLS if e.mutates and not e.immediate], ids=lambda e: e.id)
def test_every_mutating_tool_description_names_the_status_tool(entry: Any) -> None:
    description = LISTED[entry.id].description or ""
    assert STATUS_TOOL in description and WAIT_TOOL in description
    if entry.destructive:
        assert "confirm with the user" in description


@pytest.mark.parametrize("entry", [e for e in TOOLS if e.immediate], ids=lambda e: e.id)
def test_writes_complete_on_return_do_not_send_agents_to_the_status_tool(entry: Any) -> None:
    description = LISTED[entry.id].description or ""
    assert STATUS_TOOL not in description and "Effective at once" in description


def test_every_guide_line_is_for_an_operation_the_catalog_has() -> None:
    assert set(WHEN) <= {e.id for e in TOOLS}


def test_the_create_cluster_tool_points_to_provision_cluster() -> None:
    assert "prefer provision_cluster" in (LISTED["create_cluster"].description or "")
    assert "first choice for a new cluster" in (LISTED["provision_cluster"].description or "")


def test_the_wait_tool_is_read_only_and_bounded_to_300_seconds() -> None:
    wait = LISTED[WAIT_TOOL]
    assert wait.annotations is not None and wait.annotations.readOnlyHint is True
    assert wait.inputSchema["properties"]["timeoutSeconds"]["maximum"] == 300
    assert wait.inputSchema["required"] == ["operationId"]


def test_tool_names_are_valid_mcp_tool_names() -> None:
    for name in LISTED:
        assert name.isidentifier() and len(name) <= 64


# -- request building -------------------------------------------------------------------------


def test_path_params_fill_the_template_and_are_escaped() -> None:
    request = build_request(BY_ID["get_cluster"], {"name": "a/b"})
    assert request.path == "/api/clusters/a%2Fb"
    assert request.params is None and request.json is None


def test_get_sends_other_fields_as_query_and_drops_nulls() -> None:
    request = build_request(BY_ID["list_operations"], {"cluster": "c1", "status": None, "limit": 5})
    assert (request.method, request.path, request.params) == (
        "GET",
        "/api/operations",
        {"cluster": "c1", "limit": 5},
    )


def test_post_sends_other_fields_as_json_body_untouched() -> None:
    body = {"operationId": "op-12345678", "reason": "wrong zone"}
    request = build_request(BY_ID["cancel_operation"], body)
    assert request.path == "/api/operations/op-12345678/cancel"
    assert request.json == {"reason": "wrong zone"}


def test_dry_run_goes_in_the_query_of_a_body_method_and_the_rest_in_the_body() -> None:
    arguments = {"name": "c1", "tieredCheckpointing": {"enabled": True}, "dryRun": True}
    request = build_request(BY_ID["update_features"], arguments)
    assert (request.method, request.path) == ("PATCH", "/api/clusters/c1/features")
    assert request.params == {"dryRun": "true"}
    assert request.json == {"tieredCheckpointing": {"enabled": True}}
    without = build_request(BY_ID["update_features"], {"name": "c1", "tieredCheckpointing": {"enabled": False}})
    assert without.params is None and without.json == {"tieredCheckpointing": {"enabled": False}}


def test_every_mutation_takes_dry_run_and_declares_the_plan_answer() -> None:
    planned = {e.id for e in TOOLS if "dryRun" in e.query}
    assert planned == {e.id for e in TOOLS if e.mutates}
    for op_id in planned:
        assert "dryRun" in BY_ID[op_id].input.model_fields, op_id
        branches = [b.get("$ref", "") for b in output_schema_of(BY_ID[op_id]).get("anyOf", [])]
        assert "#/$defs/PlanView" in branches, (op_id, branches)


def test_missing_path_param_is_a_422_in_the_api_shape() -> None:
    with pytest.raises(Exception) as caught:
        build_request(BY_ID["get_operation"], {})
    error = caught.value
    assert getattr(error, "status", None) == 422
    assert error.error.details[0].field == "path.operationId"  # type: ignore[attr-defined]


# -- calls through a mock transport -----------------------------------------------------------


def _runner(
    handler: Any, token: str | None = "tok", api_url: str = "http://api.test", **kwargs: Any
) -> tuple[ToolRunner, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = RestClient(api_url, token, transport=httpx.MockTransport(record))
    return ToolRunner(client, poll_first=0.01, poll_max=0.02, **kwargs), seen


def _pattern_mismatch(field: str, message: str, detail: str, request_id: str) -> dict[str, Any]:
    """The API's 422 envelope for one field that does not match its pattern."""
    return {
        "code": "VALIDATION_FAILED",
        "message": message,
        "details": [{"field": field, "rule": "string_pattern_mismatch", "message": detail}],
        "requestId": request_id,
    }


async def test_result_is_the_rest_response_and_token_is_forwarded() -> None:
    body = {"items": []}
    runner, seen = _runner(lambda r: httpx.Response(200, json=body))
    result = await runner.call("list_clusters", {})
    assert result.isError is False and result.structuredContent == body
    assert seen[0].headers["authorization"] == "Bearer tok"
    assert str(seen[0].url) == "http://api.test/api/clusters"


async def test_rest_422_comes_back_as_tool_error_with_message_and_field() -> None:
    envelope = _pattern_mismatch("body.name", "body.name: String should match pattern", "use letters", "req-1")
    runner, _ = _runner(lambda r: httpx.Response(422, json=envelope))
    result = await runner.call("create_cluster", {"name": "bad name"})
    assert result.isError is True
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("body.name: String should match pattern")
    assert "- body.name: use letters [string_pattern_mismatch]" in text
    assert "HTTP 422 VALIDATION_FAILED, request id req-1" in text
    assert result.structuredContent == {"status": 422, "error": envelope}


async def test_non_envelope_error_keeps_its_words() -> None:
    runner, _ = _runner(lambda r: httpx.Response(502, text="<html>Bad Gateway</html>"))
    result = await runner.call("list_clusters", {})
    assert result.isError and "Bad Gateway" in result.content[0].text  # type: ignore[union-attr]


async def test_retry_after_is_passed_on() -> None:
    envelope = {"code": "THROTTLED", "message": "EKS is throttling; try again shortly", "details": []}
    runner, _ = _runner(lambda r: httpx.Response(503, json=envelope, headers={"Retry-After": "7"}))
    result = await runner.call("list_clusters", {})
    assert "retry after 7 s" in result.content[0].text  # type: ignore[union-attr]


async def test_without_a_token_every_call_is_refused_before_reaching_rest() -> None:
    runner, seen = _runner(lambda r: httpx.Response(200, json={}), token=None)
    for name in [*(e.id for e in TOOLS), WAIT_TOOL]:
        args = {"operationId": "op-12345678"} if name in (WAIT_TOOL, "get_operation") else {}
        result = await runner.call(name, args)
        assert result.isError, name
        assert "No bearer token" in result.content[0].text  # type: ignore[union-attr]
    assert seen == []


async def test_unreachable_api_is_a_tool_error_naming_the_url() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    runner, _ = _runner(refuse)
    result = await runner.call("list_clusters", {})
    assert result.isError and "http://api.test is unreachable" in result.content[0].text  # type: ignore[union-attr]


async def test_unknown_tool_is_a_tool_error() -> None:
    runner, _ = _runner(lambda r: httpx.Response(200, json={}))
    result = await runner.call("drop_everything", {})
    assert result.isError and "tools/list" in result.content[0].text  # type: ignore[union-attr]


async def test_cluster_goes_in_the_path_as_the_rest_route_names_it() -> None:
    runner, seen = _runner(lambda r: httpx.Response(200, json={"items": []}))
    result = await runner.call("list_nodes", {"cluster": "team-a"})
    assert result.isError is False
    assert seen[0].url.path == "/api/clusters/team-a/nodes"


async def test_cluster_of_a_new_cluster_goes_in_the_body_as_cluster() -> None:
    runner, seen = _runner(lambda r: httpx.Response(202, json={"status": "ACCEPTED"}))
    await runner.call("provision_cluster", {"cluster": "team-b", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    assert (seen[0].method, seen[0].url.path) == ("POST", "/api/clusters/provision")
    assert json.loads(seen[0].content) == {"cluster": "team-b", "availabilityZones": ["us-east-1a", "us-east-1b"]}


async def test_the_rest_spelling_name_still_reaches_the_cluster() -> None:
    """A diagnosis's suggested command says {"name": ...}; an agent passing it on still reaches the cluster."""
    runner, seen = _runner(lambda r: httpx.Response(202, json={"status": "ACCEPTED"}))
    await runner.call("reboot_nodes", {"name": "team-a", "nodeIds": ["i-0123456789abcdef0"]})
    assert seen[0].url.path == "/api/clusters/team-a/nodes/reboot"


async def test_cluster_and_a_different_name_are_refused_before_rest() -> None:
    runner, seen = _runner(lambda r: httpx.Response(200, json={}))
    result = await runner.call("get_cluster", {"cluster": "team-a", "name": "team-b"})
    assert result.isError and seen == []
    assert (result.structuredContent or {})["error"]["details"][0]["field"] == "cluster"


async def test_rest_errors_about_the_cluster_name_it_as_the_agent_did() -> None:
    message = "name must be 1-63 letters, digits and hyphens (path.name)"
    envelope = _pattern_mismatch("path.name", message, "name must be 1-63 ...", "req-2")
    runner, _ = _runner(lambda r: httpx.Response(422, json=envelope))
    result = await runner.call("get_cluster", {"cluster": "bad name"})
    error = (result.structuredContent or {})["error"]
    assert error["message"] == "cluster must be 1-63 letters, digits and hyphens (cluster)"
    assert error["details"][0] == {
        "field": "cluster",
        "rule": "string_pattern_mismatch",
        "message": "cluster must be 1-63 ...",
    }


async def test_a_next_step_names_the_tool_to_call_and_its_arguments_not_a_rest_path() -> None:
    """The API's fix for a refused job is a REST call; an agent reads it as the tool call that makes it."""
    envelope = {
        "code": "CONFLICT",
        "message": "Checkpointless training needs tiered checkpointing on team-a; turn it on first.",
        "details": [
            {
                "field": None,
                "rule": "next_step",
                "message": 'PATCH /api/clusters/team-a/features {"tieredCheckpointing": {"enabled": true}}',
            },
            {"field": None, "rule": "next_step", "message": "POST /api/clusters/import"},
        ],
    }
    runner, _ = _runner(lambda r: httpx.Response(409, json=envelope))
    result = await runner.call("submit_job", {"cluster": "team-a"})
    text = result.content[0].text  # type: ignore[union-attr]
    call = 'call update_features with {"cluster": "team-a", "tieredCheckpointing": {"enabled": true}}'
    assert f"- next step: {call}" in text
    assert "- next step: call import_cluster with {}" in text
    assert "(request)" not in text and "/api/" not in text
    details = (result.structuredContent or {})["error"]["details"]
    assert [d["message"] for d in details] == [call, "call import_cluster with {}"]


async def test_a_missing_cluster_is_named_cluster() -> None:
    runner, seen = _runner(lambda r: httpx.Response(200, json={}))
    result = await runner.call("list_nodes", {})
    assert result.isError and seen == []
    assert (result.structuredContent or {})["error"]["details"][0]["field"] == "cluster"


# -- the wait tool ----------------------------------------------------------------------------


def _operation(status: str, phase_status: str = "RUNNING", *more: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "op-12345678",
        "kind": "create-control-plane",
        "target": "c1",
        "status": status,
        "phases": [{"name": "CreateCluster", "title": "Create EKS", "status": phase_status, "message": "boom"}, *more],
        "request": {},
        "createdAt": "2026-11-30T21:00:00Z",
        "updatedAt": "2026-11-30T21:00:00Z",
        "statusUrl": "/api/operations/op-12345678",
    }


async def test_wait_polls_with_backoff_until_terminal() -> None:
    answers = iter([_operation("PENDING", "PENDING"), _operation("RUNNING"), _operation("SUCCEEDED", "SUCCEEDED")])
    runner, seen = _runner(lambda r: httpx.Response(200, json=next(answers)))
    progress: list[tuple[float, float | None, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678", "timeoutSeconds": 5}, report)
    assert result.isError is False
    out = result.structuredContent or {}
    assert (out["terminal"], out["status"], out["polls"]) == (True, "SUCCEEDED", 3)
    assert all(r.url.path == "/api/operations/op-12345678" for r in seen)
    assert progress == [(0.5, 1.0, "CreateCluster RUNNING"), (1.0, 1.0, "CreateCluster SUCCEEDED; operation SUCCEEDED")]


async def test_progress_names_every_phase_that_started_or_ended_between_polls_in_order() -> None:
    def phase(name: str, status: str) -> dict[str, Any]:
        return {"name": name, "title": name, "status": status}

    answers = iter(
        [
            _operation("RUNNING", "RUNNING", phase("Oidc", "PENDING"), phase("Addons", "PENDING")),
            _operation("RUNNING", "RUNNING", phase("Oidc", "PENDING"), phase("Addons", "PENDING")),
            _operation("RUNNING", "SUCCEEDED", phase("Oidc", "SKIPPED"), phase("Addons", "RUNNING")),
            _operation("FAILED", "SUCCEEDED", phase("Oidc", "SKIPPED"), phase("Addons", "FAILED")),
        ]
    )
    runner, _ = _runner(lambda r: httpx.Response(200, json=next(answers)))
    progress: list[tuple[float, float | None, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    await runner.call(WAIT_TOOL, {"operationId": "op-12345678", "timeoutSeconds": 5}, report)
    # one notification per change (none for the poll that saw nothing new), progress rising each time
    assert progress == [
        (0.5, 3.0, "CreateCluster RUNNING"),
        (2.5, 3.0, "CreateCluster SUCCEEDED; Oidc SKIPPED; Addons RUNNING"),
        (3.0, 3.0, "Addons FAILED; operation FAILED"),
    ]


async def test_wait_reports_the_failed_phase_and_how_to_resume() -> None:
    runner, _ = _runner(lambda r: httpx.Response(200, json=_operation("FAILED", "FAILED")))
    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678"})
    out = result.structuredContent or {}
    assert out["terminal"] is True
    assert "phase CreateCluster: boom" in out["summary"] and "retry_operation" in out["summary"]


async def test_wait_that_runs_out_of_time_says_to_call_again() -> None:
    runner, _ = _runner(lambda r: httpx.Response(200, json=_operation("RUNNING")))
    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678", "timeoutSeconds": 1})
    out = result.structuredContent or {}
    assert result.isError is False and out["terminal"] is False
    assert f"call {WAIT_TOOL} again" in out["summary"]
    assert out["waitedSeconds"] <= 1.5


async def test_wait_over_300_seconds_is_a_validation_error_with_the_field() -> None:
    runner, seen = _runner(lambda r: httpx.Response(200, json=_operation("RUNNING")))
    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678", "timeoutSeconds": 3600})
    assert result.isError and seen == []
    assert (result.structuredContent or {})["error"]["details"][0]["field"] == "timeoutSeconds"


async def test_server_cap_shortens_the_wait() -> None:
    runner, _ = _runner(lambda r: httpx.Response(200, json=_operation("RUNNING")), max_wait_seconds=0.05)
    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678", "timeoutSeconds": 300})
    assert (result.structuredContent or {})["waitedSeconds"] < 1


async def test_wait_passes_on_rest_errors() -> None:
    envelope = {"code": "NOT_FOUND", "message": "Operation op-12345678 does not exist", "details": []}
    runner, _ = _runner(lambda r: httpx.Response(404, json=envelope))
    result = await runner.call(WAIT_TOOL, {"operationId": "op-12345678"})
    assert result.isError and "does not exist" in result.content[0].text  # type: ignore[union-attr]


def test_results_are_json_text_and_structured_content() -> None:
    from mcp_gateway.tools import ok

    result = ok({"a": 1})
    assert isinstance(result.content[0], types.TextContent)
    assert json.loads(result.content[0].text) == {"a": 1}


@pytest.mark.parametrize(
    "given", ["http://api.test", "http://api.test/", "http://api.test/api", "http://api.test/api/"]
)
async def test_the_api_url_may_be_given_with_or_without_its_api_path(given: str) -> None:
    # The sandbox's banner lists REST at http://127.0.0.1:3099/api; pasted as --api-url, it must still reach the routes.
    runner, seen = _runner(lambda r: httpx.Response(200, json={"items": []}), api_url=given)
    await runner.call("list_clusters", {})
    assert str(seen[0].url) == "http://api.test/api/clusters"
