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


def test_layers_are_kept():
    result = subprocess.run([sys.executable, "-m", "importlinter.cli", "lint-imports"], capture_output=True, text=True)
    if result.returncode != 0 and "No module named" in result.stderr:
        result = subprocess.run(["lint-imports"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
