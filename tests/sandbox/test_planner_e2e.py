"""The planner on every mutating route of the catalog: the same request again, one changed field that
cannot change on the existing resource, and ``?dryRun=true`` (PLANNED, nothing recorded or started).

Routes on the provisioned cluster of this module (e2e-plan) are tested here; the endpoint and job routes run
on the shared clusters of their groups (test_planner_inference_e2e.py, test_planner_jobs_e2e.py), and
features, task governance and MLflow's NOOP and dryRun in their own modules (named below).

| route | same request again | immutable field (409/422 naming it) | test |
|---|---|---|---|
| POST /clusters | NOOP | availabilityZones, logging | here: create_cluster |
| POST /clusters/provision | NOOP | hyperpod.availabilityZone | here: provision |
| POST /clusters/import | NOOP | none: the name is the whole request | here: import |
| DELETE /clusters/{name} | in flight: that operation | none (confirm is the name) | here (dryRun); lifecycle |
| POST /clusters/{name}/hyperpod | NOOP | nodeRecovery, instanceGroups (→ instance-groups routes) | here |
| POST .../software-update | in flight: that operation | none; an unknown group is 422 | here (dryRun); lifecycle |
| POST /clusters/{name}/dependencies | NOOP | none: pins come from the manifest | here |
| POST /clusters/{name}/storage | NOOP | prefix, namespace | here |
| DELETE /clusters/{name}/storage/{s} | NOOP saying it has no such storage (applied at once) | none | here |
| POST .../phases/{phase} | in flight: that operation; after: runs again | none: path only | here |
| POST .../nodes/{reboot,replace,delete}, .../health-checks | in flight: that operation; then acts again | none | here |
| POST .../instance-groups | NOOP | instanceType, capacityType, efaOnly, zone, dedicatedSubnet (count → PATCH) | here |
| PATCH .../instance-groups/{g} | NOOP | instanceType, capacityType, efaOnly, subnetId (422) | here |
| DELETE .../instance-groups/{g} | in flight: that operation; after: 404 | none | here (dryRun, 404) |
| PUT .../autoscaling | NOOP | none (dryRun refused as the request: not continuous) | here; test_autoscaling_e2e |
| PATCH .../features | NOOP | none: every feature turns on and off | test_features_e2e, test_mcp_sandbox |
| PUT .../mlflow | NOOP | size of an existing server | here; test_mlflow_e2e |
| PUT .../task-governance/policy, .../teams/{t} | NOOP | none | test_task_governance_e2e |
| DELETE .../teams/{t} | NOOP saying it has no such team (applied at once) | none | here; test_task_governance_e2e |
| PUT .../ladder-policy | NOOP (applied at once) | none | here |
| PUT /preferences | NOOP (applied at once) | none | here |
| POST /operations/{id}/retry | 409 while it runs (only FAILED/CANCELLED retry) | none | here |
| POST /operations/{id}/cancel | 409: already CANCELLED (its dry run too) | none | here |
| POST .../endpoints | NOOP | every field it was made with (replicas → PATCH) | test_planner_inference_e2e |
| PATCH .../endpoints/{e} | NOOP | none: replicas is all it takes | test_planner_inference_e2e |
| DELETE .../endpoints/{e} | in flight: that operation; after: 404 | none | test_planner_inference_e2e |
| POST .../endpoints/{e}/invoke | answered again (not idempotent) | none | test_planner_inference_e2e |
| POST .../model-pools/{p}/assign | NOOP ("already serves") | none | test_planner_inference_e2e |
| POST .../models/download | in flight: that operation | none | test_planner_inference_e2e |
| POST .../jobs | 409 naming jobName (a job runs once) | none | test_planner_jobs_e2e |
| DELETE .../jobs/{j} | 404: it is gone (a dry run too) | none | test_planner_jobs_e2e |

("lifecycle" is test_cluster_lifecycle_e2e.py.)

dryRun, on every mutating route: a route that starts a workflow answers PLANNED with its steps and records
nothing. The writes applied at once plan too, after every check the write makes: storage and teams' deletes,
ladder policy, preferences and cancel, job submission and delete (the job and its pods), invoke (the one
request it would send) and assign (the pod's label) answer PLANNED with steps naming what they would change,
and change nothing (read back); every refusal (confirm, not Launchpod's, an operation that has ended) applies
to the dry run as well. Deleting a storage or team that is already gone is NOOP saying so (a retried delete
whose first answer was lost then reads as done); a job, endpoint or instance group that is gone answers 404.
"""

from __future__ import annotations

import pytest
from launchpod.domain.clusters import provision

from tests.sandbox.clusters import ZONES

pytestmark = pytest.mark.e2e

NAME = "e2e-plan"
HYPERPOD = {
    "availabilityZone": "us-east-1a",
    "instanceGroups": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
}
STORAGE = {"kind": "s3", "storageName": "shared", "prefix": "datasets"}
BODY = {"name": NAME, "availabilityZones": ZONES, "hyperpod": HYPERPOD, "storage": STORAGE}


@pytest.fixture(scope="module")
def provisioned(sandbox):
    sandbox.provision(BODY)
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


def test_a_new_clusters_provision_dry_run_lists_a_step_for_every_phase_that_will_run(sandbox, provisioned):
    planned = _planned(sandbox, "POST", "/api/clusters/provision", {**BODY, "name": "e2e-plan-new"})
    # the phases the operation records and runs, storage's among them (the provision workflow's own list)
    phases = [name for name, _ in provision.phases(with_storage=True)]
    assert list(dict.fromkeys(s["phase"] for s in planned["steps"])) == phases, planned["steps"]
    installs = [s["target"] for s in planned["steps"] if s["phase"] in ("Addons", "Manifests")]
    assert "EKS add-on cert-manager" in " ".join(installs) and "kuberay" not in " ".join(installs)


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
    assert f"Change them in {NAME}'s instance groups: add, scale or delete a group there." in error["message"]


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
    targets = [s["target"] for s in planned.json()["steps"]]
    assert f"HyperPod cluster {NAME} (InService)" in targets and f"EKS cluster {NAME} (ACTIVE)" in targets
    assert not any("MLflow" in t for t in targets), targets  # this cluster has no tracking server
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


def _planned(sandbox, method: str, path: str, body: dict | None = None, role: str = "admin", **params) -> dict:
    before = _count(sandbox)
    with sandbox.client(role) as c:
        response = c.request(method, path, json=body, params={"dryRun": "true", **params})
    assert response.status_code == 200 and response.json()["status"] == "PLANNED", response.text
    assert response.json()["steps"], response.text
    assert _count(sandbox) == before
    return dict(response.json())


def _twice(sandbox, method: str, path: str, body: dict, role: str = "admin") -> str:
    """The same request twice while the first is in flight: one operation, answered to both."""
    before = _count(sandbox)
    with sandbox.client(role) as c:
        first = c.request(method, path, json=body)
        again = c.request(method, path, json=body)
    assert first.status_code == 202 and again.status_code == 202, (first.text, again.text)
    op = first.json()["operation"]["id"]
    assert again.json()["operation"]["id"] == op
    assert _count(sandbox) == before + 1
    return str(op)


def _node(sandbox) -> str:
    with sandbox.client("viewer") as c:
        (node,) = c.get(f"/api/clusters/{NAME}/nodes").json()["items"]
    return str(node["nodeId"])


def test_a_phase_run_again_while_it_runs_is_that_operation_and_its_dry_run_starts_nothing(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/phases/storage"
    plan = _planned(sandbox, "POST", path, {})
    assert [s["phase"] for s in plan["steps"]] == ["StorageAccess", "ApplyVolume", "WaitBound"]
    op = _twice(sandbox, "POST", path, {})
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def test_node_actions_in_flight_answer_their_operation_and_dry_runs_act_on_nothing(sandbox, provisioned):
    node = _node(sandbox)
    base = f"/api/clusters/{NAME}"
    for action, body in [
        ("nodes/reboot", {"nodeIds": [node]}),
        ("nodes/replace", {"nodeIds": [node], "acknowledgeDataLoss": True}),
        ("nodes/delete", {"nodeIds": [node], "acknowledgeDataLoss": True}),
        ("health-checks", {"targets": [{"instanceGroup": "gpu"}]}),
    ]:
        plan = _planned(sandbox, "POST", f"{base}/{action}", body)
        assert [s["phase"] for s in plan["steps"]] == ["StartAction", "WaitNodes"], plan
        acted = plan["steps"][0]
        assert acted["target"] == (f"node {node}" if "nodeIds" in body else "every node of group gpu"), plan
        if action in ("nodes/replace", "nodes/delete"):
            assert "volumes are lost" in acted["reason"], plan
    assert _node(sandbox) == node  # nothing was replaced or deleted
    op = _twice(sandbox, "POST", f"{base}/nodes/reboot", {"nodeIds": [node]}, role="operator")
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED"
    # the operation records its plan
    assert [(s["action"], s["phase"]) for s in done["plan"]] == [("reboot", "StartAction"), ("wait", "WaitNodes")]
    op = _twice(sandbox, "POST", f"{base}/health-checks", {"targets": [{"instanceGroup": "gpu"}]})
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def test_instance_groups_again_are_noop_fixed_fields_are_refused_and_dry_runs_change_nothing(sandbox, provisioned):
    base = f"/api/clusters/{NAME}/instance-groups"
    group = HYPERPOD["instanceGroups"][0]
    _noop(sandbox, "POST", base, {"group": "gpu", "instanceType": group["instanceType"], "instanceCount": 1})
    _noop(sandbox, "PATCH", f"{base}/gpu", {"instanceCount": 1, "instanceType": group["instanceType"]})
    refused = _refused(
        sandbox,
        "POST",
        base,
        {"group": "gpu", "instanceType": "ml.g5.12xlarge", "instanceCount": 1},
        "body.instanceType",
    )
    assert "fixed for the life of the group" in refused["message"]
    more = _refused(
        sandbox,
        "POST",
        base,
        {"group": "gpu", "instanceType": group["instanceType"], "instanceCount": 2},
        "body.instanceCount",
    )
    assert "PATCH .../instance-groups/gpu" in more["message"]
    again = {"group": "gpu", "instanceType": group["instanceType"], "instanceCount": 1}
    _noop(sandbox, "POST", base, {**again, "availabilityZone": HYPERPOD["availabilityZone"]})
    elsewhere = _refused(sandbox, "POST", base, {**again, "availabilityZone": "us-east-1b"}, "body.availabilityZone")
    assert "'us-east-1a', not 'us-east-1b'" in elsewhere["message"]
    _refused(sandbox, "POST", base, {**again, "dedicatedSubnet": True}, "body.dedicatedSubnet")
    with sandbox.client() as c:
        fixed = c.patch(f"{base}/gpu", json={"capacityType": "spot"})
    assert fixed.status_code == 422 and fixed.json()["details"][0]["field"] == "body.capacityType", fixed.text

    # each dry run lists exactly the steps that run, with what changes: no subnet step where none applies
    scaled = _planned(sandbox, "PATCH", f"{base}/gpu", {"instanceCount": 0})["steps"]
    assert [(s["action"], s["phase"]) for s in scaled] == [("update", "UpdateCluster"), ("wait", "WaitGroup")]
    assert "instanceCount 1 -> 0" in scaled[0]["reason"]
    added = _planned(sandbox, "POST", base, {"group": "cpu", "instanceType": "ml.m5.2xlarge", "instanceCount": 1})
    assert [s["phase"] for s in added["steps"]] == ["UpdateCluster", "WaitGroup"]
    assert "1 x ml.m5.2xlarge in us-east-1a" in added["steps"][0]["reason"]
    removed = _planned(sandbox, "DELETE", f"{base}/gpu", confirm="gpu")["steps"]
    assert [s["phase"] for s in removed] == ["UpdateCluster", "WaitGroup"]
    with sandbox.client("viewer") as c:
        groups = c.get(base).json()["items"]
    assert [(g["instanceGroup"], g["targetCount"]) for g in groups] == [("gpu", 1)]
    with sandbox.client() as c:
        gone = c.delete(f"{base}/cpu", params={"confirm": "cpu"})
    assert gone.status_code == 404 and "it has gpu" in gone.json()["message"], gone.text


def test_autoscaling_again_is_noop_and_its_dry_run_is_refused_as_the_request_would_be(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/autoscaling"
    _noop(sandbox, "PUT", path, {"enabled": False})
    before = _count(sandbox)
    with sandbox.client() as c:  # this cluster was created without continuous provisioning
        refused = c.put(path, json={"enabled": True, "instanceGroups": ["gpu"]}, params={"dryRun": "true"})
    assert refused.status_code == 409 and "continuous provisioning" in refused.json()["message"], refused.text
    assert _count(sandbox) == before
    with sandbox.client("viewer") as c:
        (group,) = c.get(f"/api/clusters/{NAME}/instance-groups").json()["items"]
    assert not group["karpenterManaged"] and group["targetCount"] == 1, group


def test_a_deleted_storage_is_noop_the_second_time_and_a_dry_run_deletes_nothing(sandbox, provisioned):
    with sandbox.client() as c:
        made = c.post(f"/api/clusters/{NAME}/storage", json={"kind": "s3", "storageName": "scratch", "prefix": "tmp"})
    assert made.status_code == 202, made.text
    assert sandbox.wait_operation(made.json()["operation"]["id"])["status"] == "SUCCEEDED"
    path = f"/api/clusters/{NAME}/storage/scratch"
    plan = _planned(sandbox, "DELETE", path)
    assert [(s["action"], s["target"]) for s in plan["steps"]] == [
        ("delete", "PersistentVolumeClaim default/scratch"),
        ("delete", "PersistentVolume scratch"),
    ], plan
    with sandbox.client() as c:
        listed = c.get(f"/api/clusters/{NAME}/storage").json()["items"]
        assert [(s["storageName"], s["status"]) for s in listed if s["storageName"] == "scratch"] == [
            ("scratch", "Bound")
        ], listed  # the dry run deleted neither the claim nor the volume
        deleted = c.delete(path)
        again = c.delete(path)
    assert deleted.status_code == 200 and "PersistentVolume/scratch" in deleted.json()["deleted"], deleted.text
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    assert again.json()["message"].startswith(f"{NAME} has no storage scratch; nothing to delete"), again.text


def test_an_mlflow_server_again_is_noop_and_another_size_is_refused(sandbox, provisioned):
    path = f"/api/clusters/{NAME}/mlflow"
    body = {"trackingServerName": "plan-ts", "size": "Small"}
    _planned(sandbox, "PUT", path, body)
    with sandbox.client() as c:
        made = c.put(path, json=body)
    assert made.status_code == 202, made.text
    assert sandbox.wait_operation(made.json()["operation"]["id"])["status"] == "SUCCEEDED"
    _noop(sandbox, "PUT", path, body)
    error = _refused(sandbox, "PUT", path, {**body, "size": "Large"}, "body.size")
    assert "is Small, not Large" in error["message"]


def _policy(sandbox) -> str:
    with sandbox.client("viewer") as c:
        return str(c.get(f"/api/clusters/{NAME}/incidents").json()["policy"])


def _active(sandbox) -> str | None:
    with sandbox.client() as c:
        return c.get("/api/preferences").json()["activeCluster"]  # type: ignore[no-any-return]


def test_sets_applied_at_once_are_noop_the_same_again_and_a_dry_run_changes_nothing(sandbox, provisioned):
    policy = f"/api/clusters/{NAME}/ladder-policy"
    with sandbox.client() as c:
        assert c.put(policy, json={"policy": "suggest"}).status_code == 200  # set, or NOOP when it already is
    _noop(sandbox, "PUT", policy, {"policy": "suggest"})
    plan = _planned(sandbox, "PUT", policy, {"policy": "auto"})
    assert [(s["action"], s["target"]) for s in plan["steps"]] == [("update", f"remediation ladder policy of {NAME}")]
    assert plan["steps"][0]["reason"].startswith("policy is suggest; the request asks for auto"), plan
    assert _policy(sandbox) == "suggest"  # the dry run set nothing
    with sandbox.client() as c:
        applied = c.put(policy, json={"policy": "off"})
    assert applied.status_code == 200 and applied.json() == {"cluster": NAME, "policy": "off"}, applied.text
    _noop(sandbox, "PUT", policy, {"policy": "off"})
    with sandbox.client() as c:  # back to the default, so health events on this cluster are suggested as before
        assert c.put(policy, json={"policy": "suggest"}).json() == {"cluster": NAME, "policy": "suggest"}

    preferences = "/api/preferences"
    with sandbox.client() as c:
        assert c.put(preferences, json={"activeCluster": None}).status_code == 200  # cleared, or NOOP
    _noop(sandbox, "PUT", preferences, {"activeCluster": None})
    plan = _planned(sandbox, "PUT", preferences, {"activeCluster": NAME})
    assert [(s["action"], s["target"], s["reason"]) for s in plan["steps"]] == [
        ("update", "activeCluster of admin", f"activeCluster is not set; the request makes it {NAME}")
    ], plan
    assert _active(sandbox) is None  # the dry run chose nothing
    with sandbox.client() as c:
        unknown = c.put(preferences, json={"activeCluster": "no-such-cluster"}, params={"dryRun": "true"})
        assert unknown.status_code == 404, unknown.text  # a dry run runs every check
        applied = c.put(preferences, json={"activeCluster": NAME})
    assert applied.status_code == 200 and applied.json() == {"subject": "admin", "activeCluster": NAME}, applied.text
    _noop(sandbox, "PUT", preferences, {"activeCluster": NAME})
    assert _active(sandbox) == NAME


def test_a_teams_delete_refuses_a_wrong_confirm_in_a_dry_run_and_is_noop_when_there_is_no_team(sandbox, provisioned):
    team = f"/api/clusters/{NAME}/teams/nobody"
    with sandbox.client() as c:
        unconfirmed = c.delete(team, params={"confirm": "somebody", "dryRun": "true"})
        assert unconfirmed.status_code == 422, unconfirmed.text
        assert unconfirmed.json()["details"][0]["rule"] == "confirm_matches_name", unconfirmed.text
        for dry_run in ("true", "false"):  # nothing to delete: NOOP, dry run or not (the PLANNED one: task governance)
            gone = c.delete(team, params={"confirm": "nobody", "dryRun": dry_run})
            assert gone.status_code == 200 and gone.json()["status"] == "NOOP", gone.text
            assert gone.json()["message"].startswith(f"{NAME} has no team nobody; nothing to delete"), gone.text


def test_retry_and_cancel_again_are_refused_naming_the_state_and_their_dry_runs_change_nothing(sandbox):
    name = "e2e-plan-retry"
    sandbox.faults(failNextEksCreate=True)
    with sandbox.client() as c:
        op = c.post("/api/clusters", json={"name": name, "availabilityZones": ZONES}).json()["operation"]["id"]
    failed = sandbox.wait_operation(op)
    assert failed["status"] == "FAILED", failed
    path = f"/api/operations/{op}"
    with sandbox.client() as c:
        plan = c.post(f"{path}/retry", params={"dryRun": "true"})
        assert plan.status_code == 200 and plan.json()["status"] == "PLANNED", plan.text
        assert plan.json()["steps"][0]["phase"] == "CreateCluster" and plan.json()["target"] == name, plan.text
        still = c.get(path).json()
    assert (still["status"], still["attempt"]) == ("FAILED", 1), still
    with sandbox.client() as c:
        ended = c.post(f"{path}/cancel", json={}, params={"dryRun": "true"})
        assert ended.status_code == 409 and "already FAILED" in ended.json()["message"], ended.text
        retried = c.post(f"{path}/retry")
        again = c.post(f"{path}/retry")
        plan = c.post(f"{path}/cancel", json={"reason": "test"}, params={"dryRun": "true"})
        running = c.get(path).json()
        cancelled = c.post(f"{path}/cancel", json={"reason": "test"})
        cancelled_again = c.post(f"{path}/cancel", json={"reason": "test"})
        dry_run_again = c.post(f"{path}/cancel", json={}, params={"dryRun": "true"})
    assert retried.status_code == 202, retried.text
    assert again.status_code == 409 and "only FAILED or CANCELLED" in again.json()["message"], again.text
    assert plan.status_code == 200 and plan.json()["status"] == "PLANNED", plan.text
    assert [(s["action"], s["target"]) for s in plan.json()["steps"]] == [
        ("stop", f"Step Functions execution {op}-r1"),
        ("update", f"operation {op}"),
    ], plan.text
    assert running["status"] in ("PENDING", "RUNNING") and running["attempt"] == 2, (
        running
    )  # the dry run stopped nothing
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED", cancelled.text
    assert cancelled_again.status_code == 409 and "already CANCELLED" in cancelled_again.json()["message"]
    assert dry_run_again.status_code == 409 and "already CANCELLED" in dry_run_again.json()["message"]
