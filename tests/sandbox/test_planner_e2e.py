"""The planner on every existing mutating route, against one provisioned cluster: the same request again
is NOOP and starts nothing, one changed field that cannot change on the existing resource is a 409 naming
it, and dryRun answers the plan without starting anything."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

NAME = "e2e-plan"
ZONES = ["us-east-1a", "us-east-1b"]
HYPERPOD = {
    "availabilityZone": "us-east-1a",
    "instanceGroups": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
}
STORAGE = {"kind": "s3", "storageName": "shared", "prefix": "datasets"}
BODY = {"name": NAME, "availabilityZones": ZONES, "hyperpod": HYPERPOD, "storage": STORAGE}


@pytest.fixture(scope="module")
def provisioned(sandbox):
    with sandbox.client() as c:
        op = c.post("/api/clusters/provision", json=BODY).json()["operation"]["id"]
    assert sandbox.wait_operation(op, timeout=180)["status"] == "SUCCEEDED"
    return NAME


def _count(sandbox) -> int:
    with sandbox.client("viewer") as c:
        return len(c.get("/api/operations", params={"cluster": NAME}).json()["items"])


def _noop(sandbox, method: str, path: str, body: dict | None = None) -> None:
    before = _count(sandbox)
    with sandbox.client() as c:
        response = c.request(method, path, json=body)
    assert response.status_code == 200 and response.json()["status"] == "NOOP", response.text
    assert _count(sandbox) == before


def _refused(sandbox, method: str, path: str, body: dict, field: str) -> dict:
    before = _count(sandbox)
    with sandbox.client() as c:
        response = c.request(method, path, json=body)
    assert response.status_code == 409, response.text
    error = response.json()
    assert [d["field"] for d in error["details"]] == [field], error
    assert error["details"][0]["rule"] == "immutable"
    assert _count(sandbox) == before
    return dict(error)


def test_create_cluster_again_is_noop_and_other_zones_are_refused(sandbox, provisioned):
    _noop(sandbox, "POST", "/api/clusters", {"name": NAME, "availabilityZones": list(reversed(ZONES))})
    _noop(sandbox, "POST", "/api/clusters", {"name": NAME, "availabilityZones": ZONES, "kubernetesVersion": "1.34"})
    error = _refused(
        sandbox,
        "POST",
        "/api/clusters",
        {"name": NAME, "availabilityZones": ["us-east-1a", "us-east-1c"]},
        "body.availabilityZones",
    )
    assert "availabilityZones" in error["message"] and "us-east-1c" in error["message"]
    _refused(
        sandbox,
        "POST",
        "/api/clusters",
        {"name": NAME, "availabilityZones": ZONES, "logging": ["api"]},
        "body.logging",
    )


def test_provision_again_is_noop_and_another_hyperpod_zone_is_refused(sandbox, provisioned):
    _noop(sandbox, "POST", "/api/clusters/provision", BODY)
    changed = {**BODY, "hyperpod": {**HYPERPOD, "availabilityZone": "us-east-1b"}}
    _refused(sandbox, "POST", "/api/clusters/provision", changed, "body.hyperpod.availabilityZone")


def test_create_hyperpod_again_is_noop_and_changed_recovery_or_groups_are_refused(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/hyperpod"
    _noop(sandbox, "POST", path, HYPERPOD)
    _refused(sandbox, "POST", path, {**HYPERPOD, "nodeRecovery": "None"}, "body.nodeRecovery")
    bigger = {**HYPERPOD, "instanceGroups": [{**HYPERPOD["instanceGroups"][0], "instanceCount": 2}]}
    error = _refused(sandbox, "POST", path, bigger, "body.instanceGroups")
    assert "instance-groups routes" in error["message"]


def test_dependencies_again_are_noop_and_dry_run_lists_the_optional_ones(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/dependencies"
    _noop(sandbox, "POST", path, {})
    before = _count(sandbox)
    with sandbox.client() as c:
        planned = c.post(path, json={"includeOptional": True}, params={"dryRun": "true"})
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    targets = [s["target"] for s in planned.json()["steps"]]
    assert any("aws-fsx-csi-driver" in t for t in targets) and any("kuberay-operator" in t for t in targets)
    assert not any("cert-manager" in t for t in targets)  # installed at its pin already
    assert _count(sandbox) == before


def test_storage_again_is_noop_and_another_prefix_is_refused(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/storage"
    _noop(sandbox, "POST", path, STORAGE)
    _refused(sandbox, "POST", path, {**STORAGE, "prefix": "models"}, "body.prefix")
    _refused(sandbox, "POST", path, {**STORAGE, "namespace": "team-a"}, "body.namespace")


def test_import_of_a_known_cluster_is_noop(sandbox, provisioned):
    # import_cluster takes only the name: there is no other field that could differ.
    _noop(sandbox, "POST", "/api/clusters/import", {"name": NAME})


def test_dry_run_of_delete_lists_the_teardown_and_deletes_nothing(sandbox, provisioned):
    before = _count(sandbox)
    with sandbox.client() as c:
        planned = c.delete(f"/api/clusters/{NAME}", params={"confirm": NAME, "dryRun": "true"})
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [s["action"] for s in planned.json()["steps"]] == ["delete"] * len(planned.json()["steps"])
    assert _count(sandbox) == before
    assert sandbox.aws("eks").describe_cluster(name=NAME)["cluster"]["status"] == "ACTIVE"


def test_update_software_dry_run_lists_each_group_and_an_unknown_group_is_refused(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/software-update"
    before = _count(sandbox)
    with sandbox.client() as c:
        planned = c.post(path, json={}, params={"dryRun": "true"})
        unknown = c.post(path, json={"instanceGroups": ["cpu"]})
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [s["target"] for s in planned.json()["steps"]] == ["software of instance group gpu"]
    assert unknown.status_code == 422 and unknown.json()["details"][0]["field"] == "body.instanceGroups.0"
    assert "gpu" in unknown.json()["message"]
    assert _count(sandbox) == before
