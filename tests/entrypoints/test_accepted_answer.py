"""Every route that starts an operation answers the same 202: the operation, its statusUrl, and a Location
header naming that same URL, so a client can follow any of them the same way. The routes come from the
catalog (every entry that answers 202), so a new one cannot be left out; the use case behind each route is
replaced by one that starts an operation at once, so what is checked is the route's own answer."""

from __future__ import annotations

import importlib
import json
import types
import typing
from datetime import UTC, datetime
from typing import Any

import pytest
from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationStatus, OperationView
from launchpod.domain.plan import Plan, Step
from launchpod.entrypoints.api.app import app, handler
from launchpod.usecases.proposal import Proposal

from tests.entrypoints.fakes import rest_event
from tests.sandbox.clusters import P5_GROUP, cluster_body

ACCEPTED = [e for e in CATALOG if e.accepted]
OPERATION_ID = "op-0000000000accepted"
STATUS_URL = f"/api/operations/{OPERATION_ID}"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
OPERATION = OperationView(
    id=OPERATION_ID,
    kind="any",
    target="c1",
    status=OperationStatus.PENDING,
    phases=[],
    request={},
    createdAt=NOW,
    updatedAt=NOW,
    statusUrl=STATUS_URL,
)
PATH_VALUES = {"name": "c1", "group": "gpu", "endpoint": "e1", "operationId": OPERATION_ID, "phase": "dependencies"}
NODE = "i-0123456789abcdef0"
# The least body each route's schema accepts (the schema is checked before the route runs).
BODIES: dict[str, dict[str, Any] | None] = {
    "create_cluster": {"name": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]},
    "provision_cluster": cluster_body("c1", P5_GROUP),
    "run_cluster_phase": None,
    "import_cluster": {"name": "c1"},
    "create_hyperpod": {
        "availabilityZone": "us-east-1a",
        "instanceGroups": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
    },
    "update_software": {},
    "delete_hyperpod": None,
    "delete_cluster": None,
    "reconcile_dependencies": {},
    "reboot_nodes": {"nodeIds": [NODE]},
    "replace_nodes": {"nodeIds": [NODE], "acknowledgeDataLoss": True},
    "delete_nodes": {"nodeIds": [NODE], "acknowledgeDataLoss": True},
    "start_health_check": {"targets": [{"instanceGroup": "gpu"}]},
    "move_nodes": {"sourceGroup": "gpu", "targetGroup": "cpu", "count": 1, "acknowledgeDataLoss": True},
    "add_instance_group": {"group": "cpu", "instanceType": "ml.m5.xlarge", "instanceCount": 1},
    "update_instance_group": {"instanceCount": 2},
    "delete_instance_group": None,
    "set_autoscaling": {"enabled": True, "groups": ["gpu"]},
    "configure_storage": {"kind": "s3", "storageName": "datasets"},
    "update_features": {"trainingOperator": {"enabled": True}},
    "retry_operation": None,
    "create_endpoint": {
        "endpoint": "e1",
        "kind": "container",
        "instanceType": "ml.g5.xlarge",
        "container": {"worker": {"image": "vllm/vllm-openai:v0.6.0", "gpus": 1}},
    },
    "scale_endpoint": {"replicas": 2},
    "delete_endpoint": None,
    "download_model": {"repoId": "org/model", "storageName": "datasets"},
    "configure_mlflow": {},
}
QUERIES = {"delete_hyperpod": "confirm=c1", "delete_cluster": "confirm=c1", "delete_instance_group": "confirm=gpu"}
ADMIN = {"cognito:username": "a", "cognito:groups": "[admin]"}


def _started(returns: Any) -> Any:
    """What a use case whose answer is ``returns`` answers when it starts an operation."""
    kinds = typing.get_args(returns) or (returns,)
    if Proposal in kinds:
        return Proposal(plan=Plan("c1", (Step("create", "c1", "asked"),)), start=lambda: OPERATION)
    extended = [k for k in kinds if isinstance(k, type) and issubclass(k, OperationAcceptedView)]
    if extended:
        return extended[0](operation=OPERATION, statusUrl=STATUS_URL)
    assert OperationView in kinds, f"a use case behind a 202 route answers {returns}"
    return OPERATION


class _Starting(types.ModuleType):
    """A use case module whose every use case starts an operation at once (and whose ports are none)."""

    def __init__(self, real: types.ModuleType) -> None:
        super().__init__(real.__name__)
        self._real = real

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._real, name)
        if name == "real":
            return lambda *args, **kwargs: None
        if not callable(found) or isinstance(found, type):
            return found
        returns = typing.get_type_hints(found)["return"]
        return lambda *args, **kwargs: _started(returns)


def _router_module(entry: CatalogEntry) -> types.ModuleType:
    found = [r.func for r in (*app._static_routes, *app._dynamic_routes) if r.operation_id == entry.id]
    assert found, entry.id
    return importlib.import_module(found[0].__module__)  # a route's module is imported on its first call


def _path(entry: CatalogEntry) -> str:
    path = entry.path
    for param in entry.path_params:
        path = path.replace("{" + param + "}", PATH_VALUES[param])
    return path


def test_every_route_that_answers_202_has_a_body_here() -> None:
    assert {e.id for e in ACCEPTED} == set(BODIES)


@pytest.mark.parametrize("entry", ACCEPTED, ids=lambda e: e.id)
def test_each_202_carries_the_operation_and_its_status_url_as_location(
    entry: CatalogEntry, lambda_context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    router = _router_module(entry)
    for attribute, value in list(vars(router).items()):
        if isinstance(value, types.ModuleType) and value.__name__.startswith("launchpod.usecases."):
            monkeypatch.setattr(router, attribute, _Starting(value))
    event = rest_event(entry.method, _path(entry), ADMIN)
    if BODIES[entry.id] is not None:
        event["body"] = json.dumps(BODIES[entry.id])
        event["headers"] = {"Content-Type": "application/json"}
        event["multiValueHeaders"] = {"Content-Type": ["application/json"]}
    if entry.id in QUERIES:
        name, value = QUERIES[entry.id].split("=")
        event["queryStringParameters"] = {name: value}
        event["multiValueQueryStringParameters"] = {name: [value]}
    response = handler(event, lambda_context)
    body = json.loads(response["body"])
    assert response["statusCode"] == 202, body
    headers = {k: v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}
    headers.update(response.get("headers") or {})
    assert body["operation"]["id"] == OPERATION_ID
    assert body["statusUrl"] == headers.get("Location") == STATUS_URL


def test_the_api_document_says_each_202_has_a_location() -> None:
    document = json.loads(app.get_openapi_json_schema(title="t", version="1"))
    missing = [
        e.id
        for e in ACCEPTED
        if "Location" not in document["paths"][e.path][e.method.lower()]["responses"]["202"].get("headers", {})
    ]
    assert missing == []


@pytest.mark.parametrize("entry_id", ["add_instance_group", "update_instance_group", "set_autoscaling"])
def test_a_change_that_already_matches_answers_200_noop_and_starts_nothing(
    entry_id: str, lambda_context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = next(e for e in ACCEPTED if e.id == entry_id)
    router = _router_module(entry)
    for attribute, value in list(vars(router).items()):
        if isinstance(value, types.ModuleType) and value.__name__.startswith("launchpod.usecases."):
            use_cases = types.SimpleNamespace(real=lambda: None)
            setattr(use_cases, entry_id, lambda *args, **kwargs: NoopView(message="gpu already has 2 instances"))
            monkeypatch.setattr(router, attribute, use_cases)
    event = rest_event(entry.method, _path(entry), ADMIN)
    event["body"] = json.dumps(BODIES[entry_id])
    event["headers"] = {"Content-Type": "application/json"}
    response = handler(event, lambda_context)
    assert response["statusCode"] == 200, response["body"]
    assert json.loads(response["body"]) == {"status": "NOOP", "message": "gpu already has 2 instances"}
    assert "Location" not in (response.get("headers") or {}) and "Location" not in response["multiValueHeaders"]
