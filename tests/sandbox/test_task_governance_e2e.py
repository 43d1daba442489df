"""Task governance teams through the sandbox: without the add-on every change is a 409 naming the feature;
with it the policy becomes Kueue WorkloadPriorityClasses and a team its namespace and queues, an equal PUT
is NOOP, a changed borrow limit one UpdateComputeQuota, a type or count the cluster lacks a 422; a job runs
in the team's queue and a queue that is not there is a 422 naming the team's; deleting removes it all (its
dry run names the quota and removes nothing; a second delete is NOOP)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from kubernetes import client as k8s

from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.e2e

NAME = "e2e-tg"
BODY = cluster_body(NAME, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2})
POLICY = {"priorityClasses": [{"name": "training", "weight": 50}, {"name": "inference", "weight": 90}]}
TEAM = {
    "resources": [{"instanceType": "ml.p5.48xlarge", "count": 1}],
    "sharing": "LendAndBorrow",
    "borrowLimit": 50,
    "fairShareWeight": 10,
}
NAMESPACE, QUEUE = "hyperpod-ns-research", "hyperpod-ns-research-localqueue"
KUEUE = ("kueue.x-k8s.io", "v1beta1")


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    return NAME


def _put(sandbox, path: str, body: dict, dry_run: bool = False):
    with sandbox.client() as c:
        return c.put(f"/api/clusters/{NAME}{path}", json=body, params={"dryRun": "true"} if dry_run else None)


def _get(sandbox, path: str) -> Any:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}{path}")
    assert response.status_code == 200, response.text
    return response.json()


def _poll(check, what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.2)


def _kueue(sandbox, plural: str, namespace: str | None = None) -> list[str]:
    api = k8s.CustomObjectsApi(sandbox.kube(NAME))
    try:
        if namespace:
            found = api.list_namespaced_custom_object(*KUEUE, namespace, plural)
        else:
            found = api.list_cluster_custom_object(*KUEUE, plural)
    except k8s.ApiException as exc:
        if exc.status == 404:  # Kueue's kinds are not served yet
            return []
        raise
    return sorted(o["metadata"]["name"] for o in found["items"])


def _namespaces(sandbox) -> list[str]:
    return [n.metadata.name for n in k8s.CoreV1Api(sandbox.kube(NAME)).list_namespace().items]


def test_without_the_add_on_policy_and_teams_are_refused_naming_the_feature(sandbox, cluster):
    for path, body in (("/task-governance/policy", POLICY), ("/teams/research", TEAM)):
        refused = _put(sandbox, path, body)
        assert refused.status_code == 409, refused.text
        assert "taskGovernance" in refused.json()["message"]
    assert _get(sandbox, "/teams")["items"] == []


def test_policy_and_team_become_kueue_objects_and_equal_requests_are_noop(sandbox, cluster):
    with sandbox.client() as c:
        on = c.patch(
            f"/api/clusters/{NAME}/features",
            json={"taskGovernance": {"enabled": True}, "trainingOperator": {"enabled": True}},
        )
    assert on.status_code == 202, on.text
    assert sandbox.wait_operation(on.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"

    made = _put(sandbox, "/task-governance/policy", POLICY)
    assert made.status_code == 200 and made.json()["status"] == "CREATED", made.text
    assert _put(sandbox, "/task-governance/policy", POLICY).json()["status"] == "NOOP"
    # the add-on's controller makes one WorkloadPriorityClass per priority class, one after the other: wait for
    # as many as the policy names (seen once under load: the read came between the first and the second)
    policy = _poll(
        lambda: (
            len((p := _get(sandbox, "/task-governance/policy"))["workloadPriorityClasses"])
            == len(POLICY["priorityClasses"])
            and p
        ),
        "the WorkloadPriorityClasses",
    )
    assert policy["configured"] is True
    assert sorted(policy["workloadPriorityClasses"]) == ["inference-priority", "training-priority"]

    dry = _put(sandbox, "/teams/research", TEAM, dry_run=True)
    assert dry.status_code == 200 and dry.json()["status"] == "PLANNED", dry.text
    assert [s["action"] for s in dry.json()["steps"]] == ["create"]
    assert _get(sandbox, "/teams")["items"] == []  # the dry run made nothing

    created = _put(sandbox, "/teams/research", TEAM)
    assert created.status_code == 200 and created.json()["status"] == "CREATED", created.text
    assert (created.json()["team"]["namespace"], created.json()["team"]["localQueue"]) == (NAMESPACE, QUEUE)
    _poll(lambda: _kueue(sandbox, "localqueues", NAMESPACE) == [QUEUE], "the team's LocalQueue")
    assert NAMESPACE in _namespaces(sandbox)
    assert _kueue(sandbox, "clusterqueues") == ["hyperpod-ns-research-clusterqueue"]
    assert _get(sandbox, "/teams")["items"][0]["queueReady"] is True

    assert _put(sandbox, "/teams/research", TEAM).json()["status"] == "NOOP"
    sm = sandbox.aws("sagemaker")
    arn = sm.describe_cluster(ClusterName=NAME)["ClusterArn"]
    (summary,) = sm.list_compute_quotas(ClusterArn=arn)["ComputeQuotaSummaries"]
    assert summary["ComputeQuotaVersion"] == 1  # the NOOP called nothing

    changed = _put(sandbox, "/teams/research", {**TEAM, "borrowLimit": 80})
    assert changed.status_code == 200 and changed.json()["status"] == "UPDATED", changed.text
    quota = sm.describe_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"])
    assert quota["ComputeQuotaVersion"] == 2
    assert quota["ComputeQuotaConfig"]["ResourceSharingConfig"] == {"Strategy": "LendAndBorrow", "BorrowLimit": 80}


def test_a_type_or_count_the_cluster_lacks_is_a_422_saying_what_it_has(sandbox, cluster):
    wrong = _put(sandbox, "/teams/vision", {**TEAM, "resources": [{"instanceType": "ml.g5.xlarge", "count": 1}]})
    assert wrong.status_code == 422, wrong.text
    assert "ml.p5.48xlarge (2)" in wrong.json()["message"]
    many = _put(sandbox, "/teams/vision", {**TEAM, "resources": [{"instanceType": "ml.p5.48xlarge", "count": 3}]})
    assert many.status_code == 422 and "has 2 ml.p5.48xlarge" in many.json()["message"], many.text
    bad_name = _put(sandbox, "/teams/Vision_Team", TEAM)
    assert bad_name.status_code == 422, bad_name.text


def test_a_job_runs_in_the_teams_queue_and_an_unknown_queue_names_the_teams(sandbox, cluster):
    job = {
        "jobName": "queued",
        "namespace": NAMESPACE,
        "queue": QUEUE,
        "priority": "training-priority",
        "instanceGroup": "gpu",
        "image": "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"],
    }
    with sandbox.client("operator") as c:
        refused = c.post(f"/api/clusters/{NAME}/jobs", json={**job, "queue": "hyperpod-ns-nobody-localqueue"})
        assert refused.status_code == 422, refused.text
        assert QUEUE in refused.json()["message"] and refused.json()["details"][0]["field"] == "body.queue"
        submitted = c.post(f"/api/clusters/{NAME}/jobs", json=job)
        assert submitted.status_code == 200, submitted.text

        def running() -> bool:
            view = c.get(f"/api/clusters/{NAME}/jobs/queued", params={"namespace": NAMESPACE}).json()
            return view["status"] in ("Running", "Succeeded")

        _poll(running, "the queued job running", timeout=120)
        assert c.delete(f"/api/clusters/{NAME}/jobs/queued", params={"namespace": NAMESPACE, "confirm": "queued"})


def test_deleting_a_team_needs_its_name_and_removes_quota_and_queues(sandbox, cluster):
    path = f"/api/clusters/{NAME}/teams/research"
    with sandbox.client() as c:
        for dry_run in ("false", "true"):  # a dry run runs every check
            unconfirmed = c.delete(path, params={"dryRun": dry_run})
            assert unconfirmed.status_code == 422, unconfirmed.text
        planned = c.delete(path, params={"confirm": "research", "dryRun": "true"})
        assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
        assert [(s["action"], s["target"]) for s in planned.json()["steps"]] == [
            ("delete", planned.json()["target"])
        ] and "team research" in planned.json()["target"], planned.text
        assert [t["team"] for t in c.get(f"/api/clusters/{NAME}/teams").json()["items"]] == ["research"]
        deleted = c.delete(path, params={"confirm": "research"})
        again = c.delete(path, params={"confirm": "research"})
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True, deleted.text
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    assert "has no team research; nothing to delete" in again.json()["message"], again.text
    assert _get(sandbox, "/teams")["items"] == []
    _poll(lambda: _kueue(sandbox, "localqueues") == [] and NAMESPACE not in _namespaces(sandbox), "the queues removed")
    assert _kueue(sandbox, "clusterqueues") == []
