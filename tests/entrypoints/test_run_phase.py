"""POST /api/clusters/{name}/phases/{phase}: one provisioning phase re-run with the settings recorded
for the cluster, through the API Lambda with the operations table on moto and fake EKS, EC2 and runner."""

from __future__ import annotations

import json
from typing import Any

import pytest
from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus
from launchpod.domain import operations as ops
from launchpod.domain.clusters import provision
from launchpod.entrypoints.api.app import handler
from launchpod.runtime import wiring

from tests.entrypoints.fakes import rest_event
from tests.fakes.ec2 import Ec2
from tests.fakes.eks import Eks
from tests.fakes.operations import Workflows
from tests.fakes.service_quotas import ServiceQuotas
from tests.sandbox.clusters import P5_GROUP, cluster_body

PROVISION = {
    **cluster_body("c1", P5_GROUP),
    "includeOptionalDependencies": True,
    "storage": {"kind": "s3", "storageName": "datasets"},
}
CLAIMS = {role: {"cognito:username": role[0], "cognito:groups": f"[{role}]"} for role in ("admin", "operator")}


@pytest.fixture
def installed(monkeypatch) -> set[tuple[str, str, str]]:
    """The Kubernetes objects the cluster has: HyperPod's dependencies (the health-monitoring agent)."""
    objects = {("c1", "DaemonSet", "health-monitoring-agent")}

    def read(cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        return obj if (cluster, obj["kind"], obj["metadata"]["name"]) in objects else None

    monkeypatch.setattr(k8s, "read", read)
    return objects


@pytest.fixture
def api(tables, monkeypatch, installed):
    store = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    clusters, runner = DynamoClusters(tables["clusters"]), Workflows()
    eks = Eks({"c1": {"status": "ACTIVE", "tags": {"launchpod:cluster": "c1"}}})
    monkeypatch.setattr(wiring, "operations", lambda: store)
    monkeypatch.setattr(wiring, "clusters", lambda: clusters)
    monkeypatch.setattr(wiring, "workflows", lambda: runner)
    monkeypatch.setattr(wiring, "eks", lambda: eks)
    ec2 = Ec2(["us-east-1a", "us-east-1b"], {"p5.48xlarge": ["us-east-1a", "us-east-1b"]})  # EC2's name for it
    monkeypatch.setattr(wiring, "ec2", lambda: ec2)
    monkeypatch.setattr(wiring, "service_quotas", lambda: ServiceQuotas({}))  # moto serves none
    clusters.register("c1", source="created", region="us-east-1")
    # the cluster was provisioned once: that operation's request is what a phase re-runs with
    provisioned, _ = ops.submit(
        store,
        runner,
        provision.plan(ProvisionClusterRequest.model_validate(PROVISION)),
        ops.Principal("alice", Role.ADMIN),
    )
    store.finish(provisioned.id, OperationStatus.SUCCEEDED, error=None, message="Done")
    runner.started.clear()
    return store, clusters, runner


def _post(lambda_context, path: str, role: str = "admin") -> tuple[int, dict[str, Any], dict[str, Any]]:
    event = rest_event("POST", path, CLAIMS[role])
    response = handler(event, lambda_context)
    headers = {k: v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}
    headers.update(response.get("headers") or {})
    return response["statusCode"], json.loads(response["body"]), headers


def test_a_phase_reruns_its_own_workflow_with_the_settings_of_the_last_provision(api, lambda_context):
    store, _, runner = api
    status, body, headers = _post(lambda_context, "/api/clusters/c1/phases/dependencies")
    assert status == 202, body
    operation = body["operation"]
    assert (operation["kind"], operation["target"]) == ("reconcile-dependencies", "c1")
    assert operation["request"] == {"name": "c1", "includeOptional": True}
    assert [p["name"] for p in operation["phases"]] == ["Addons", "Manifests"]
    assert body["statusUrl"] == headers["Location"] == f"/api/operations/{operation['id']}"
    assert [(w, e) for w, e, _ in runner.started] == [("reconcile-dependencies", operation["id"])]
    assert store.holder("c1") == operation["id"]


def test_storage_and_hyperpod_rerun_with_their_recorded_parts(api, lambda_context):
    store, _, runner = api
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/storage")
    assert status == 202, body
    assert body["operation"]["kind"] == "configure-storage"
    assert body["operation"]["request"] == {
        "name": "c1",
        "kind": "s3",
        "storageName": "datasets",
        "namespace": "default",
    }
    store.finish(body["operation"]["id"], OperationStatus.SUCCEEDED, error=None, message="Done")

    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/hyperpod")
    assert status == 202, body
    assert body["operation"]["kind"] == "create-hyperpod"
    assert body["operation"]["request"]["instanceGroups"][0]["instanceType"] == "ml.p5.48xlarge"
    assert [w for w, _, _ in runner.started] == ["configure-storage", "create-hyperpod"]


def test_a_phase_with_nothing_recorded_names_the_route_that_takes_its_settings(api, lambda_context):
    _, clusters, runner = api
    clusters.register("c2", source="imported", region="us-east-1")
    status, body, _ = _post(lambda_context, "/api/clusters/c2/phases/hyperpod")
    assert status == 409 and body["code"] == "CONFLICT"
    assert "POST /api/clusters/c2/hyperpod" in body["message"]
    assert runner.started == []


def test_an_unknown_phase_is_refused_naming_the_phases(lambda_context):
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/network")
    assert status == 422 and body["details"][0]["field"] == "path.phase"
    for phase in ("control-plane", "dependencies", "hyperpod", "storage"):
        assert f"'{phase}'" in body["message"]


def test_an_unknown_cluster_is_not_found_by_name(api, lambda_context):
    status, body, _ = _post(lambda_context, "/api/clusters/nope/phases/dependencies")
    assert status == 404 and "nope" in body["message"]


def test_an_operator_may_not_rerun_a_phase(lambda_context):
    # refused before anything is read or started
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/dependencies", role="operator")
    assert status == 403 and "admin" in body["message"]


def test_a_busy_cluster_is_a_conflict_naming_the_operation_that_holds_it(api, lambda_context):
    status, first, _ = _post(lambda_context, "/api/clusters/c1/phases/dependencies")
    assert status == 202
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/hyperpod")
    assert status == 409 and first["operation"]["id"] in body["message"]
    assert body["details"][0]["message"] == first["operation"]["id"]


def test_the_same_phase_again_while_it_runs_answers_the_running_operation(api, lambda_context):
    _, _, runner = api
    _, first, _ = _post(lambda_context, "/api/clusters/c1/phases/dependencies")
    status, again, _ = _post(lambda_context, "/api/clusters/c1/phases/dependencies")
    assert status == 202 and again["operation"]["id"] == first["operation"]["id"]
    assert len(runner.started) == 1


def test_dependencies_need_an_active_control_plane(api, lambda_context, monkeypatch):
    monkeypatch.setattr(wiring, "eks", lambda: Eks({"c1": {"status": "CREATING"}}))
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/dependencies")
    assert status == 409 and "CREATING" in body["message"]


def test_hyperpod_is_not_created_before_its_dependencies(api, installed, lambda_context):
    installed.clear()
    status, body, _ = _post(lambda_context, "/api/clusters/c1/phases/hyperpod")
    assert status == 409, body
    assert "HyperPod's dependencies are not installed on c1" in body["message"]
    assert "Install the cluster's dependencies" in body["message"]
    # the call that does it, for the CLI and agents; the message says it in words
    assert {"field": None, "rule": "next_step", "message": "POST /api/clusters/c1/dependencies"} in body["details"]
    assert api[2].started == []
