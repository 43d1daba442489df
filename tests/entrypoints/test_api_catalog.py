"""The API serves exactly the catalog: same ids, paths, methods, input fields and role checks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from launchpod.contracts.catalog_ops import CATALOG
from launchpod.entrypoints.api.app import app, handler

from tests.entrypoints.fakes import rest_event

OPENAPI = json.loads(app.get_openapi_json_schema(title="t", version="1"))


def _resolve(schema: dict) -> dict:
    ref = schema.get("$ref")
    return OPENAPI["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.id)
def test_every_catalog_operation_is_served_as_declared(entry):
    operation = OPENAPI["paths"][entry.path][entry.method.lower()]
    assert operation["operationId"] == entry.id
    fields = set(entry.input.model_fields)
    params = {p["name"] for p in operation.get("parameters", [])}
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        body_fields = set(_resolve(body).get("properties", {}))
        options = [_resolve(s) for s in body.get("anyOf", [])]
        body_fields |= {k for o in options for k in o.get("properties", {})}
        params |= body_fields if set(entry.input.model_fields) - set(entry.path_params) else set()
    assert fields <= params | set(entry.path_params), (fields, params)
    assert set(entry.path_params) <= params


def test_nothing_is_served_that_the_catalog_does_not_know():
    served = {(path, method.upper()) for path, item in OPENAPI["paths"].items() for method in item}
    assert served == {(e.path, e.method) for e in CATALOG}


@pytest.mark.parametrize("entry", [e for e in CATALOG if e.role], ids=lambda e: e.id)
def test_every_route_but_health_needs_a_token(lambda_context, entry):
    path = entry.path.replace("{name}", "c1").replace("{operationId}", "op-0000000000")
    response = handler(rest_event(entry.method, path, None), lambda_context)
    assert response["statusCode"] == 401
    assert json.loads(response["body"])["code"] == "UNAUTHORIZED"


@pytest.mark.parametrize("entry", [e for e in CATALOG if e.role and e.role.value != "viewer"], ids=lambda e: e.id)
def test_a_viewer_is_refused_every_mutation(lambda_context, entry):
    path = entry.path.replace("{name}", "c1").replace("{operationId}", "op-0000000000")
    claims = {"cognito:username": "v", "cognito:groups": "[viewer]"}
    response = handler(rest_event(entry.method, path, claims), lambda_context)
    assert response["statusCode"] == 403
    assert "viewer" in json.loads(response["body"])["message"]


def test_unknown_routes_answer_the_error_envelope(lambda_context):
    response = app.resolve(rest_event("GET", "/api/nope", None), lambda_context)
    assert response["statusCode"] == 404 and json.loads(response["body"])["code"] == "NOT_FOUND"


def test_the_docs_page_is_swagger_ui_over_the_served_document(lambda_context):
    response = handler(rest_event("GET", "/api/docs", None), lambda_context)
    assert response["statusCode"] == 200 and response["multiValueHeaders"]["Content-Type"] == ["text/html"]
    page = response["body"].replace(" ", "")
    assert "SwaggerUIBundle" in page and '"operationId":"create_cluster"' in page


def test_layers_are_kept():
    result = subprocess.run([sys.executable, "-m", "importlinter.cli", "lint-imports"], capture_output=True, text=True)
    if result.returncode != 0 and "No module named" in result.stderr:
        result = subprocess.run(["lint-imports"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


ADMIN_CLAIMS = {"cognito:username": "a", "cognito:groups": "[admin]"}


def _call(lambda_context, method: str, path: str, *, body: str | None = None, headers=None, b64: bool = False):
    event = rest_event(method, path, ADMIN_CLAIMS)
    event.update(body=body, headers=headers or {}, isBase64Encoded=b64)
    response = handler(event, lambda_context)
    headers = dict(response.get("headers") or {})
    headers.update({k: ", ".join(v) for k, v in (response.get("multiValueHeaders") or {}).items()})
    return response["statusCode"], json.loads(response["body"]), headers


def test_a_method_a_path_does_not_take_is_405_naming_the_ones_it_does(lambda_context):
    status, body, headers = _call(lambda_context, "PUT", "/api/clusters")
    assert (status, body["code"], headers.get("Allow")) == (405, "METHOD_NOT_ALLOWED", "GET, POST")


def test_a_concrete_path_is_matched_before_a_templated_one(lambda_context):
    # /nodes/reboot is its own resource (POST), not a node named "reboot" (GET /nodes/{nodeId})
    status, body, headers = _call(lambda_context, "GET", "/api/clusters/c1/nodes/reboot")
    assert (status, body["code"], headers.get("Allow")) == (405, "METHOD_NOT_ALLOWED", "POST")


def test_a_body_that_is_not_a_json_object_is_refused_before_any_route(lambda_context):
    status, body, _ = _call(lambda_context, "POST", "/api/clusters", body="a=b", headers={"Content-Type": "text/plain"})
    assert (status, body["code"]) == (415, "UNSUPPORTED_MEDIA_TYPE")
    json_type = {"content-type": "application/json"}
    status, body, _ = _call(lambda_context, "POST", "/api/clusters", body="[null]", headers=json_type)
    assert (status, body["code"], body["details"][0]["field"]) == (422, "VALIDATION_FAILED", "body")
    status, body, _ = _call(lambda_context, "POST", "/api/clusters", body="gL4=", b64=True)  # bytes 0x80 0xbe
    assert (status, body["code"]) == (400, "BAD_REQUEST")


def test_a_search_window_that_ends_before_it_starts_is_a_422_naming_the_query_field(lambda_context):
    event = rest_event("GET", "/api/training-plans/offerings", ADMIN_CLAIMS)
    event["queryStringParameters"] = {
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": "1",
        "startTimeAfter": "2030-01-02T00:00:00Z",
        "endTimeBefore": "2030-01-01T00:00:00Z",
    }
    response = handler(event, lambda_context)
    body = json.loads(response["body"])
    assert response["statusCode"] == 422, body
    assert body["details"][0]["field"] == "query.endTimeBefore" and "after startTimeAfter" in body["message"]


def test_a_search_start_given_as_a_number_is_a_422_asking_for_iso_8601(lambda_context):
    event = rest_event("GET", "/api/training-plans/offerings", ADMIN_CLAIMS)
    event["queryStringParameters"] = {"instanceType": "ml.p5.48xlarge", "instanceCount": "1", "startTimeAfter": "613"}
    response = handler(event, lambda_context)
    body = json.loads(response["body"])
    assert response["statusCode"] == 422 and "ISO 8601" in body["message"], body
