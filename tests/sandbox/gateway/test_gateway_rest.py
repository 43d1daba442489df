"""The sandbox gateway turns HTTP into API Gateway REST proxy events and Lambda answers back into HTTP."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from sandbox.auth import SandboxTokens
from sandbox.gateway import build_gateway


class FakeLambda:
    """Records every invocation and answers like the API function would."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, event: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((name, event))
        path = event.get("path", "")
        if path == "/api/boom":
            raise RuntimeError("Traceback (most recent call last): secret internals")
        if path == "/api/unhandled":
            return {"errorMessage": "division by zero", "errorType": "ZeroDivisionError", "stackTrace": ["x"]}
        if path == "/api/malformed":
            return {"body": "no status code"}
        if path == "/api/binary":
            return {
                "statusCode": 200,
                "headers": {"Content-Type": "application/octet-stream"},
                "body": base64.b64encode(b"\x00\xff\x10").decode(),
                "isBase64Encoded": True,
            }
        if path == "/api/cookies":
            return {
                "statusCode": 201,
                "headers": {"X-One": "1"},
                "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
                "body": "",
            }
        return {
            "statusCode": 200,
            "headers": {"Content-Type": "application/json"},
            "body": json.dumps({"seen": event["path"]}),
        }

    @property
    def last_event(self) -> dict[str, Any]:
        return self.calls[-1][1]


@pytest.fixture
def tokens() -> SandboxTokens:
    return SandboxTokens.generate()


@pytest.fixture
def fake() -> FakeLambda:
    return FakeLambda()


@pytest.fixture
def http(fake: FakeLambda, tokens: SandboxTokens) -> TestClient:
    return TestClient(build_gateway(lambda_invoke=fake, tokens=tokens))


def test_rest_event_has_the_api_gateway_proxy_shape(http: TestClient, fake: FakeLambda, tokens: SandboxTokens) -> None:
    response = http.post(
        "/api/clusters/demo?verbose=1&tag=a&tag=b",
        content=b'{"name": "demo"}',
        headers={"Authorization": f"Bearer {tokens.token_for('operator')}", "X-Trace": "t1"},
    )
    assert response.status_code == 200 and response.json() == {"seen": "/api/clusters/demo"}
    name, event = fake.calls[-1]
    assert name == "launchpod-api"
    assert event["resource"] == "/{proxy+}" and event["path"] == "/api/clusters/demo"
    assert event["httpMethod"] == "POST" and event["body"] == '{"name": "demo"}' and event["isBase64Encoded"] is False
    assert event["pathParameters"] == {"proxy": "clusters/demo"} and event["stageVariables"] is None
    assert event["queryStringParameters"] == {"verbose": "1", "tag": "b"}
    assert event["multiValueQueryStringParameters"] == {"verbose": ["1"], "tag": ["a", "b"]}
    assert event["headers"]["x-trace"] == "t1" and event["multiValueHeaders"]["x-trace"] == ["t1"]
    context = event["requestContext"]
    assert context["domainName"] == "lpsandbox.execute-api.us-east-1.amazonaws.com"
    assert context["apiId"] == "lpsandbox" and context["stage"] == "prod"
    assert context["resourcePath"] == "/{proxy+}" and context["httpMethod"] == "POST"
    assert context["identity"]["sourceIp"] and context["requestId"]
    assert context["authorizer"]["claims"]["cognito:groups"] == "operator"
    assert context["authorizer"]["claims"]["cognito:username"] == "operator"
    assert response.headers["x-amzn-requestid"] == context["requestId"]


def test_missing_token_reaches_the_backend_without_claims(http: TestClient, fake: FakeLambda) -> None:
    assert http.get("/api/health").status_code == 200
    assert "authorizer" not in fake.last_event["requestContext"]
    assert fake.last_event["queryStringParameters"] is None and fake.last_event["body"] is None


def test_invalid_token_is_refused_without_calling_lambda(http: TestClient, fake: FakeLambda) -> None:
    response = http.get("/api/clusters", headers={"Authorization": "Bearer forged"})
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "UNAUTHORIZED" and "make sandbox" in body["message"]
    assert body["details"] == [] and body["requestId"]
    assert fake.calls == []


@pytest.mark.parametrize("path", ["/api/boom", "/api/unhandled", "/api/malformed"])
def test_lambda_failure_is_a_502_envelope_without_internals(http: TestClient, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 502
    body = response.json()
    assert body["code"] == "INTERNAL" and body["details"] == [] and body["requestId"]
    assert "Traceback" not in response.text and "secret" not in response.text and "division" not in response.text


def test_binary_bodies_travel_base64_both_ways(http: TestClient, fake: FakeLambda) -> None:
    response = http.put("/api/binary", content=b"\x89PNG\xff\x00")
    assert fake.last_event["isBase64Encoded"] is True
    assert base64.b64decode(fake.last_event["body"]) == b"\x89PNG\xff\x00"
    assert response.content == b"\x00\xff\x10"
    assert response.headers["content-type"] == "application/octet-stream"


def test_multi_value_headers_come_back(http: TestClient) -> None:
    response = http.get("/api/cookies")
    assert response.status_code == 201
    assert response.headers.get_list("set-cookie") == ["a=1", "b=2"]
    assert response.headers["x-one"] == "1"


def test_head_options_and_unsupported_methods(http: TestClient, fake: FakeLambda) -> None:
    head = http.head("/api/health")
    assert head.status_code == 200 and head.content == b"" and fake.last_event["httpMethod"] == "GET"
    http.options("/api/clusters", headers={"Origin": "http://x", "Access-Control-Request-Method": "POST"})
    assert fake.last_event["httpMethod"] == "OPTIONS"
    calls = len(fake.calls)
    refused = http.request("TRACE", "/api/clusters")
    assert refused.status_code == 405 and refused.json()["code"] == "METHOD_NOT_ALLOWED"
    assert len(fake.calls) == calls


def test_static_site_with_spa_fallback(tmp_path: Path, fake: FakeLambda, tokens: SandboxTokens) -> None:
    (tmp_path / "index.html").write_text("<html>app</html>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log(1)")
    http = TestClient(build_gateway(lambda_invoke=fake, tokens=tokens, web_dir=tmp_path))
    assert http.get("/").text == "<html>app</html>"
    assert http.get("/assets/app.js").text == "console.log(1)"
    deep = http.get("/clusters/demo/jobs")
    assert deep.status_code == 200 and deep.text == "<html>app</html>"
    assert http.get("/../../etc/passwd").text == "<html>app</html>"
    assert http.get("/healthz").json()["status"] == "ok"


def test_every_file_of_the_site_is_checked_again_and_an_unchanged_one_answers_304(
    tmp_path: Path, fake: FakeLambda, tokens: SandboxTokens
) -> None:
    """As the deployment stores it (no-cache on every object) and S3 answers it (304 for a matching ETag): a browser
    never runs an index.html from its cache, and reloads nothing that did not change."""
    (tmp_path / "index.html").write_text("<html>app</html>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log(1)")
    http = TestClient(build_gateway(lambda_invoke=fake, tokens=tokens, web_dir=tmp_path))
    for path in ("/", "/clusters/demo", "/assets/app.js"):
        first = http.get(path)
        assert first.headers["cache-control"] == "no-cache" and first.headers["etag"], path
        again = http.get(path, headers={"If-None-Match": first.headers["etag"]})
        assert (again.status_code, again.content) == (304, b""), path
    stale = http.get("/assets/app.js", headers={"If-None-Match": '"another"'})
    assert (stale.status_code, stale.text) == (200, "console.log(1)")


def test_landing_page_without_a_web_build(fake: FakeLambda, tokens: SandboxTokens, tmp_path: Path) -> None:
    http = TestClient(build_gateway(lambda_invoke=fake, tokens=tokens, web_dir=tmp_path / "missing"))
    page = http.get("/")
    assert page.status_code == 200 and "Launchpod sandbox" in page.text
    assert "/api/docs" in page.text and "/api/health" in page.text


def test_mcp_is_503_until_built_then_mounted_with_its_lifespan(fake: FakeLambda, tokens: SandboxTokens) -> None:
    http = TestClient(build_gateway(lambda_invoke=fake, tokens=tokens))
    response = http.post("/mcp", json={})
    assert response.status_code == 503 and response.json()["message"] == "The MCP gateway is not built yet."

    started: list[str] = []

    async def endpoint(request: Any) -> JSONResponse:
        return JSONResponse({"path": request.url.path, "lifespan": started})

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Any):  # type: ignore[no-untyped-def]
        started.append("up")
        yield

    mcp = Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])], lifespan=lifespan)
    with TestClient(build_gateway(lambda_invoke=fake, tokens=tokens, mcp_app=mcp)) as client:
        answer = client.post("/mcp", json={})
        assert answer.json() == {"path": "/mcp", "lifespan": ["up"]}
