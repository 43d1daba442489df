"""The OpenAI-compatible routes answer errors with OpenAI's ``error`` object beside Launchpod's envelope, so
an OpenAI SDK raises its typed error with Launchpod's words; every other route keeps the envelope alone."""

from __future__ import annotations

import json

import pytest
from launchpod.entrypoints.api.app import app, handler

from tests.entrypoints.fakes import rest_event

CHAT = "/api/clusters/c1/endpoints/e1/openai/v1/chat/completions"
VIEWER = {"cognito:username": "v", "cognito:groups": "[viewer]"}


def _call(lambda_context, method: str, path: str, claims=None, body: dict | None = None) -> tuple[int, dict]:
    event = rest_event(method, path, claims)
    if body is not None:
        event["body"], event["headers"] = json.dumps(body), {"Content-Type": "application/json"}
    response = handler(event, lambda_context)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize(
    ("method", "path", "claims", "status", "kind"),
    [
        ("POST", CHAT, None, 401, "authentication_error"),
        ("POST", CHAT, VIEWER, 403, "permission_error"),
        ("GET", CHAT, VIEWER, 405, "invalid_request_error"),
    ],
)
def test_openai_routes_answer_openai_s_error_object_and_launchpod_s_envelope(
    lambda_context, method, path, claims, status, kind
):
    got, body = _call(lambda_context, method, path, claims)
    assert got == status
    assert body["error"]["type"] == kind and body["error"]["message"] == body["message"]
    assert body["error"]["code"] == body["code"].lower()


def test_an_invalid_openai_request_names_the_field_as_param(lambda_context):
    operator = {"cognito:username": "o", "cognito:groups": "[operator]"}
    got, body = _call(lambda_context, "POST", CHAT, operator, {"model": "m", "messages": [], "stream": True})
    assert got == 422 and body["error"]["param"] == "body.messages" and body["error"]["type"] == "invalid_request_error"


def test_other_routes_keep_the_envelope_alone(lambda_context):
    got, body = _call(lambda_context, "POST", "/api/clusters/c1/endpoints/e1/invoke", VIEWER)
    assert got == 403 and "error" not in body and body["code"] == "FORBIDDEN"


def test_the_openapi_document_declares_the_event_stream_and_openai_s_error_body():
    spec = json.loads(app.get_openapi_json_schema(title="t", version="1"))
    responses = spec["paths"]["/api/clusters/{name}/endpoints/{endpoint}/openai/v1/chat/completions"]["post"][
        "responses"
    ]
    assert "text/event-stream" in responses["200"]["content"]
    assert responses["403"]["content"]["application/json"]["schema"]["$ref"].endswith("/OpenAIErrorView")
    invoke = spec["paths"]["/api/clusters/{name}/endpoints/{endpoint}/invoke"]["post"]
    body = spec["components"]["schemas"][
        invoke["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    ]
    assert body["properties"]["maxTokens"]["deprecated"] is True and "max_tokens" in body["properties"]
