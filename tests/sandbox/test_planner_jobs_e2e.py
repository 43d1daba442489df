"""The planner on the training-job routes, on the shared jobs cluster (see the route table in
test_planner_e2e.py): a job runs once, so the same submission again is a 409 naming jobName and starts
nothing; a second delete finds nothing; a dry run of either makes every check the write makes and answers
PLANNED with its steps (the job, and the pods that come or go with it), and the cluster has nothing new, or
still everything (read back from the API server)."""

from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _jobs(sandbox) -> list[str]:
    found = k8s.CustomObjectsApi(sandbox.kube(NAME)).list_namespaced_custom_object(
        "sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs"
    )
    return [j["metadata"]["name"] for j in found["items"]]


def _dry(sandbox, method: str, path: str, body: dict | None = None, **params):
    with sandbox.client("operator") as c:
        return c.request(method, f"/api/clusters/{NAME}{path}", json=body, params={"dryRun": "true", **params})


def _pods(sandbox, job: str) -> list[str]:
    """The pods the job has, read with a plain GET (the typed client cannot read the GPU and EFA amounts back)."""
    found = k8s.CoreV1Api(sandbox.kube(NAME)).list_namespaced_pod(
        "default", label_selector=f"launchpod.io/job={job}", _preload_content=False
    )
    return sorted(p["metadata"]["name"] for p in json.loads(found.data)["items"])


def test_a_job_submitted_again_is_refused_naming_it_and_a_dry_run_plans_it_and_submits_nothing(sandbox, cluster):
    body = custom_job("plan-once", replicas=2)
    planned = _dry(sandbox, "POST", "/jobs", body)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [(s["action"], s["target"]) for s in planned.json()["steps"]] == [
        ("create", "HyperPodPyTorchJob default/plan-once"),
        ("create", "2 Pod(s) default/plan-once-*"),
    ]
    assert "image pytorch/pytorch:2.7.1" in planned.json()["steps"][0]["reason"]
    assert "ml.p5.48xlarge: 8 GPUs, 32 EFA interfaces" in planned.json()["steps"][1]["reason"]
    refused = _dry(sandbox, "POST", "/jobs", {**body, "nprocPerNode": 16})  # a dry run checks what a submit does
    assert refused.status_code == 422 and refused.json()["details"][0]["field"] == "body.nprocPerNode", refused.text
    assert "plan-once" not in _jobs(sandbox) and _pods(sandbox, "plan-once") == []
    first = submit(sandbox, body)
    assert first.status_code == 200, first.text
    for again in (body, {**body, "image": "pytorch/pytorch:2.8.0-cuda12.8-cudnn9-runtime"}):
        response = submit(sandbox, again)
        assert response.status_code == 409, response.text
        assert [(d["field"], d["rule"]) for d in response.json()["details"]] == [("body.jobName", "unique")]
    again = _dry(sandbox, "POST", "/jobs", body)
    assert again.status_code == 409 and again.json()["details"][0]["rule"] == "unique", again.text
    assert _jobs(sandbox).count("plan-once") == 1


def test_a_deleted_job_is_gone_the_second_time_and_a_dry_run_plans_it_and_deletes_nothing(sandbox, cluster):
    if "plan-once" not in _jobs(sandbox):
        assert submit(sandbox, custom_job("plan-once", replicas=2)).status_code == 200
    pods = wait_until(
        lambda: len(p := _pods(sandbox, "plan-once")) >= 2 and p, 60, reason="plan-once never had its 2 pods"
    )
    assert len(pods) == 2, pods
    unconfirmed = _dry(sandbox, "DELETE", "/jobs/plan-once", confirm="nope")
    assert unconfirmed.status_code == 422 and unconfirmed.json()["details"][0]["field"] == "query.confirm"
    planned = _dry(sandbox, "DELETE", "/jobs/plan-once", confirm="plan-once")
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [(s["action"], s["target"]) for s in planned.json()["steps"]] == [
        ("delete", "HyperPodPyTorchJob default/plan-once"),
        *[("delete", f"Pod default/{p}") for p in pods],
    ]
    assert "plan-once" in _jobs(sandbox) and _pods(sandbox, "plan-once") == pods
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/jobs/plan-once", params={"confirm": "plan-once"})
        again = c.delete(f"/api/clusters/{NAME}/jobs/plan-once", params={"confirm": "plan-once"})
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True, deleted.text
    assert again.status_code == 404 and "no training job plan-once" in again.json()["message"], again.text
    gone = _dry(sandbox, "DELETE", "/jobs/plan-once", confirm="plan-once")
    assert gone.status_code == 404 and "no training job plan-once" in gone.json()["message"], gone.text
