"""Lambda: the same app behind Mangum answers function-URL events, invocation after invocation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from launchpod.contracts.catalog_ops import TOOLS

from mcp_gateway.lambda_handler import make_handler
from mcp_gateway.toolsets import ENABLE_TOOL, is_core
from tests.mcp_gateway.support import INITIALIZE_PARAMS


def _event(body: dict[str, Any], token: str | None, **more: str) -> dict[str, Any]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", **more}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return {  # a Lambda function URL event (payload format 2.0)
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": {**headers, "host": "abc.lambda-url.us-east-1.on.aws"},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc",
            "domainName": "abc.lambda-url.us-east-1.on.aws",
            "http": {
                "method": "POST",
                "path": "/mcp",
                "protocol": "HTTP/1.1",
                "sourceIp": "10.0.0.1",
                "userAgent": "t",
            },
            "requestId": "r1",
            "routeKey": "$default",
            "stage": "$default",
            "time": "30/Nov/2026:21:00:00 +0000",
            "timeEpoch": 0,
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


def _rpc(method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}


def test_lambda_answers_initialize_and_tools_list_in_separate_invocations() -> None:
    handler = make_handler({"LAUNCHPOD_API_URL": "https://api.example.test"})
    for _ in range(2):  # the lifespan runs per invocation; the second must work as well as the first
        init = handler(_event(_rpc("initialize", INITIALIZE_PARAMS), "t"), None)
        assert init["statusCode"] == 200, init
        assert json.loads(init["body"])["result"]["serverInfo"]["name"] == "launchpod"
        listed = handler(_event(_rpc("tools/list", id_=2), "t"), None)
        assert listed["statusCode"] == 200
        # stateless: no session could keep what an agent enables, so every tool is listed
        assert len(json.loads(listed["body"])["result"]["tools"]) == len(TOOLS) + 1


def test_lambda_lists_the_toolsets_a_request_names_in_its_header() -> None:
    """GitHub's remote MCP server's convention: X-MCP-Toolsets chooses the list where no session can."""
    handler = make_handler({"LAUNCHPOD_API_URL": "https://api.example.test"})
    listed = handler(_event(_rpc("tools/list"), "t", **{"x-mcp-toolsets": "jobs"}), None)
    names = {t["name"] for t in json.loads(listed["body"])["result"]["tools"]}
    assert "submit_job" in names and "create_endpoint" not in names
    assert {e.id for e in TOOLS if is_core(e)} | {ENABLE_TOOL} <= names
    # enabling more cannot outlive this request: the tool says how to ask for them instead
    call = _rpc("tools/call", {"name": ENABLE_TOOL, "arguments": {"toolsets": ["inference"]}})
    refused = handler(_event(call, "t", **{"x-mcp-toolsets": "jobs"}), None)
    result = json.loads(refused["body"])["result"]
    assert result["isError"] is True and "X-MCP-Toolsets: inference" in result["content"][0]["text"]


def test_lambda_refuses_requests_without_a_token() -> None:
    handler = make_handler({"LAUNCHPOD_API_URL": "https://api.example.test"})
    answer = handler(_event(_rpc("initialize", INITIALIZE_PARAMS), None), None)
    assert answer["statusCode"] == 401
    assert json.loads(answer["body"])["code"] == "UNAUTHORIZED"


def test_lambda_needs_the_api_url() -> None:
    with pytest.raises(RuntimeError, match="LAUNCHPOD_API_URL"):
        make_handler({})
