"""Names, prefixes, tags and path parameters with injection and traversal attempts are refused with
422 before anything reads AWS or Kubernetes, and the answer names the field."""

from __future__ import annotations

import json

import pytest
from launchpod.entrypoints.api.app import handler

from tests.entrypoints.fakes import rest_event

ADMIN = {"cognito:username": "a", "cognito:groups": "[admin]"}
ZONES = ["us-east-1a", "us-east-1b"]
HOSTILE_NAMES = [
    "../etc",
    "a/../../b",
    "x;rm -rf /",
    "$(id)",
    "`id`",
    "a\nb",
    "<script>alert(1)</script>",
    "a" * 64,
    "UPPER_case",
    "..",
    "%2e%2e",
    "name\u0000",
]
HOSTILE_PREFIXES = ["../other", "a/../../b", "/etc/passwd", "a//b", "./a", "a/./b", "a\\b", "s3://bucket/x", "a b"]


def _post(lambda_context, path: str, body: dict) -> tuple[int, dict]:
    event = rest_event("POST", path, ADMIN)
    event.update(body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = handler(event, lambda_context)
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_cluster_name_that_could_escape_is_refused(lambda_context, name):
    status, body = _post(lambda_context, "/api/clusters", {"name": name, "availabilityZones": ZONES})
    assert status == 422, body
    assert body["details"][0]["field"] == "body.name"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_storage_or_namespace_name_that_is_not_a_kubernetes_name_is_refused(lambda_context, name):
    for field in ("storageName", "namespace"):
        request = {"kind": "s3", "storageName": "training", field: name}
        status, body = _post(lambda_context, "/api/clusters/c1/storage", request)
        assert status == 422, body
        assert body["details"][0]["field"] == f"body.{field}"


@pytest.mark.parametrize("prefix", HOSTILE_PREFIXES)
def test_a_prefix_that_leaves_its_place_in_the_bucket_is_refused(lambda_context, prefix):
    request = {"kind": "s3", "storageName": "t", "prefix": prefix}
    status, body = _post(lambda_context, "/api/clusters/c1/storage", request)
    assert status == 422, body
    assert body["details"][0]["field"].startswith("body.prefix")
    event = rest_event("GET", "/api/clusters/c1/storage/t/objects", ADMIN)
    event["queryStringParameters"] = {"prefix": prefix}
    event["multiValueQueryStringParameters"] = {"prefix": [prefix]}
    response = handler(event, lambda_context)
    assert response["statusCode"] == 422, response["body"]


@pytest.mark.parametrize(
    "tags",
    [{"aws:created-by": "me"}, {"k": "v;rm -rf /"}, {"k": "$(id)"}, {"": "v"}, {"k" * 129: "v"}, {"k": "<b>"}],
)
def test_tags_that_aws_would_refuse_later_are_refused_now(lambda_context, tags):
    status, body = _post(lambda_context, "/api/clusters", {"name": "c1", "availabilityZones": ZONES, "tags": tags})
    assert status == 422, body
    assert body["details"][0]["field"].startswith("body.tags")


@pytest.mark.parametrize(
    ("kubernetes", "field"),
    [
        ({"taints": [{"key": "gpu", "value": "", "effect": "NoSchedule"}]}, "body.taints.0.value"),
        ({"labels": {"-team./tier": "a"}}, "body.labels.-team./tier.[key]"),
        ({"labels": {"Example.com/tier": "a"}}, "body.labels.Example.com/tier.[key]"),
        ({"labels": {"tier": ""}}, "body.labels.tier"),
    ],
)
def test_labels_and_taints_sagemaker_would_refuse_are_refused_before_an_operation_starts(
    lambda_context, kubernetes, field
):
    group = {"group": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1, **kubernetes}
    status, body = _post(lambda_context, "/api/clusters/c1/instance-groups", group)
    assert status == 422, body
    assert body["details"][0]["field"] == field, body


@pytest.mark.parametrize("path", ["/api/clusters/..%2F..%2Fetc", "/api/clusters/a;b", "/api/operations/..%2Fx"])
def test_a_path_parameter_with_traversal_matches_nothing(lambda_context, path):
    response = handler(rest_event("GET", path, ADMIN), lambda_context)
    assert response["statusCode"] in (404, 422), response["body"]
    assert json.loads(response["body"])["code"] in ("NOT_FOUND", "VALIDATION_FAILED")


def test_a_count_out_of_bounds_is_said_as_what_to_give(lambda_context):
    # pydantic's own words were "List should have at least 2 items after validation, not 1"
    status, body = _post(lambda_context, "/api/clusters", {"cluster": "one-zone", "availabilityZones": ["us-east-1a"]})
    assert status == 422
    assert body["details"][0]["message"] == "availabilityZones takes at least 2; 1 given", body
