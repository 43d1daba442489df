"""One name per concept across every request and view of the OpenAPI document (issue 32, item 7).

The document is the committed one (web/src/api/openapi.json), which test_openapi_document.py holds to what
the API's resolver builds from the contracts. Each property of a component schema and each query parameter
is checked against launchpod.contracts.naming.CONCEPTS: a name that is an older spelling is marked
deprecated and sits next to its canonical name; no concept is called by two names that are not deprecated.
A REST path parameter keeps its name (``/clusters/{name}``): a path is not a field a client names. The
OpenAI-compatible routes speak OpenAI's names and are left out. How the renamed fields behave (both
spellings taken, never both at once) is tested here on the models and through the API.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from launchpod.contracts import naming
from launchpod.contracts.catalog_ops import TOOLS
from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.hyperpod import CreateHyperPodRequest
from launchpod.contracts.inference import ContainerSpec
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, MigLayout
from launchpod.contracts.models import DownloadModelRequest
from launchpod.contracts.task_governance import InstanceQuota
from pydantic import ValidationError

from mcp_gateway.schemas import input_schema_of
from tests.entrypoints.fakes import rest_event

ADMIN = {"cognito:username": "a", "cognito:groups": "[admin]"}
DOCUMENT = Path(__file__).resolve().parents[2] / "web" / "src" / "api" / "openapi.json"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return dict(json.loads(DOCUMENT.read_text(encoding="utf-8")))


def _openai_schemas(doc: dict[str, Any]) -> set[str]:
    """Schemas reached only from the OpenAI-compatible routes (/v1/...): they keep OpenAI's names."""
    from launchpod.contracts.chat import openai_compatible

    def refs(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                yield node["$ref"].rsplit("/", 1)[-1]
            for value in node.values():
                yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    def closure(roots: set[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(refs(doc["components"]["schemas"][name]))
        return seen

    openai_roots: set[str] = set()
    other_roots: set[str] = set()
    for path, item in doc["paths"].items():
        for op in item.values():
            (openai_roots if openai_compatible(path) else other_roots).update(refs(op))
    return closure(openai_roots) - closure(other_roots)


def _names(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any], set[str]]]:
    """(where, name, its schema or parameter, its siblings' names) for every property and query parameter."""
    skip = _openai_schemas(doc)
    for schema_name, schema in doc["components"]["schemas"].items():
        if schema_name in skip:
            continue
        properties = schema.get("properties") or {}
        for name, sub in properties.items():
            yield schema_name, name, sub, set(properties)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            params = [p for p in op.get("parameters", []) if p["in"] == "query"]
            for p in params:
                yield f"{method.upper()} {path}", p["name"], p, {q["name"] for q in params}


def naming_problems(doc: dict[str, Any]) -> list[str]:
    """What breaks "one name per concept" in ``doc``, in words."""
    problems = []
    used: dict[str, set[str]] = {}
    for where, name, spec, siblings in _names(doc):
        canonical = naming.canonical_of(name, where)
        if canonical is None:
            continue
        if not spec.get("deprecated"):
            problems.append(f"{where}: {name} is an older spelling of {canonical}; call it {canonical}")
            used.setdefault(canonical, set()).add(name)
        elif canonical not in siblings:
            problems.append(f"{where}: deprecated {name} has no {canonical} next to it")
    for _, name, spec, _ in _names(doc):
        if name in naming.BY_CANONICAL and not spec.get("deprecated") and name in used:
            problems.append(f"{name} is also called {', '.join(sorted(used[name]))}: one name per concept")
            used.pop(name)
    return problems


def test_no_concept_goes_by_two_names_and_each_older_spelling_is_deprecated_next_to_its_name(document):
    assert naming_problems(document) == []


def test_the_check_fails_when_a_new_body_calls_the_cluster_clusterName(document):
    doc = copy.deepcopy(document)
    doc["components"]["schemas"]["NewThingRequest"] = {
        "type": "object",
        "properties": {"clusterName": {"type": "string"}, "size": {"type": "integer"}},
    }
    assert naming_problems(doc) == [
        "NewThingRequest: clusterName is an older spelling of cluster; call it cluster",
        "cluster is also called clusterName: one name per concept",
    ]


def test_the_check_fails_when_an_older_spelling_is_deprecated_without_its_name_beside_it(document):
    doc = copy.deepcopy(document)
    doc["components"]["schemas"]["NewThingRequest"] = {
        "type": "object",
        "properties": {"zone": {"type": "string", "deprecated": True}},
    }
    assert naming_problems(doc) == ["NewThingRequest: deprecated zone has no availabilityZone next to it"]


def test_the_table_gives_each_spelling_one_concept():
    anywhere = [s for c in naming.CONCEPTS for s in c.older]
    scoped = [(word, schema) for c in naming.CONCEPTS for word, where in c.older_in.items() for schema in where]
    assert len(anywhere) == len(set(anywhere)) and len(scoped) == len(set(scoped))
    assert not {w for w, _ in scoped} & set(anywhere)
    assert not (set(anywhere) | {w for w, _ in scoped}) & set(naming.BY_CANONICAL)
    with pytest.raises(ValueError, match="not an older spelling of cluster"):
        naming.renamed("cluster", "zone")


def test_an_older_spelling_is_still_taken_and_means_the_same():
    old = CreateClusterRequest.model_validate({"name": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    new = CreateClusterRequest.model_validate({"cluster": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    assert old == new and new.cluster == "c1"
    group = {"instanceType": "ml.g5.xlarge", "instanceCount": 1}
    hyperpod = CreateHyperPodRequest.model_validate(
        {"availabilityZone": "us-east-1a", "instanceGroups": [{"name": "a", **group}, {"instanceGroup": "b", **group}]}
    )
    assert [g.instanceGroup for g in hyperpod.instanceGroups] == ["a", "b"]
    assert AddInstanceGroupRequest.model_validate({"group": "g", **group}).instanceGroup == "g"
    container = ContainerSpec.model_validate(
        {"worker": {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1}, "storage": "shared"}
    )
    assert container.storageClaim == "shared"
    download = DownloadModelRequest.model_validate({"repoId": "Qwen/Qwen3-0.6B", "storage": "shared"})
    assert download.storageName == "shared"
    mig = MigLayout.model_validate({"mode": "single", "profile": "mig-1g.10gb"})
    assert mig.acceleratorPartitionType == "mig-1g.10gb"
    quota = InstanceQuota.model_validate({"instanceType": "ml.p5.48xlarge", "count": 2})
    assert quota.instanceCount == 2 and quota.model_dump(exclude_none=True) == {
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": 2,
    }


def test_both_spellings_at_once_are_refused_naming_both():
    body = {"cluster": "c1", "name": "c2", "availabilityZones": ["us-east-1a", "us-east-1b"]}
    with pytest.raises(ValidationError) as raised:
        ProvisionClusterRequest.model_validate(body)
    (error,) = raised.value.errors()
    assert error["type"] == naming.ONE_SPELLING
    assert error["msg"] == "name and cluster are one field: send cluster only (name is its older spelling)"


def _call(lambda_context, method: str, path: str, body: dict | None = None, query: dict | None = None):
    from launchpod.entrypoints.api.app import handler

    event = rest_event(method, path, ADMIN)
    if body is not None:
        event.update(body=json.dumps(body), headers={"Content-Type": "application/json"})
    event["queryStringParameters"] = query
    response = handler(event, lambda_context)
    return response["statusCode"], json.loads(response["body"])


def test_the_api_answers_both_spellings_of_a_body_field_with_a_422_naming_both(lambda_context):
    body = {"cluster": "c1", "name": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]}
    status, error = _call(lambda_context, "POST", "/api/clusters/provision", body)
    assert (status, error["code"], error["details"][0]["rule"]) == (422, "VALIDATION_FAILED", "one_spelling")
    assert "name and cluster are one field: send cluster only" in error["message"]


def test_the_api_answers_both_spellings_of_a_query_parameter_with_a_422_naming_both(lambda_context):
    query = {"availabilityZone": "us-east-1a", "zone": "us-east-1b"}
    status, error = _call(lambda_context, "GET", "/api/catalog/instance-types", query=query)
    assert (status, error["details"][0]["field"], error["details"][0]["rule"]) == (422, "query.zone", "one_spelling")
    assert error["message"].startswith("zone and availabilityZone are one parameter: send availabilityZone only")


def test_an_older_spelling_is_checked_as_its_field_is(lambda_context):
    group = {"instanceType": "ml.g5.xlarge", "instanceCount": 1}
    status, error = _call(lambda_context, "POST", "/api/clusters/c1/instance-groups", {"group": "bad name", **group})
    assert status == 422 and error["details"][0]["field"] == "body.group"


def test_the_document_says_one_spelling_or_the_other(document):
    schema = document["components"]["schemas"]["CreateClusterRequest"]
    assert {"oneOf": [{"required": ["cluster"]}, {"required": ["name"]}]} in schema["allOf"]
    assert schema["properties"]["name"]["deprecated"] is True


def test_the_mcp_tools_show_no_older_spelling():
    for entry in TOOLS:
        schema = json.dumps(input_schema_of(entry))
        assert '"deprecated"' not in schema, entry.id
    add = next(e for e in TOOLS if e.id == "add_instance_group")
    shown = input_schema_of(add)
    assert "instanceGroup" in shown["properties"] and "group" not in shown["properties"]
    assert "instanceGroup" in shown["required"]
    put_team = json.dumps(input_schema_of(next(e for e in TOOLS if e.id == "put_team")))
    assert '"instanceCount"' in put_team and '"count": {"type": "null"}' not in put_team
