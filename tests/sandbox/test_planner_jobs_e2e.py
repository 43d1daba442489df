"""The planner on the training-job routes, on the shared jobs cluster (see the route table in
test_planner_e2e.py): a job runs once, so the same submission again is a 409 naming jobName and starts
nothing; a second delete finds nothing; both write at once, so a dry run is refused (422) and writes nothing."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

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


def test_a_job_submitted_again_is_refused_naming_it_and_a_dry_run_submits_nothing(sandbox, cluster):
    body = custom_job("plan-once")
    refused = _dry(sandbox, "POST", "/jobs", body)
    assert refused.status_code == 422 and refused.json()["details"][0]["rule"] == "no_dry_run", refused.text
    assert "plan-once" not in _jobs(sandbox)
    first = submit(sandbox, body)
    assert first.status_code == 200, first.text
    for again in (body, {**body, "image": "pytorch/pytorch:2.8.0-cuda12.8-cudnn9-runtime"}):
        response = submit(sandbox, again)
        assert response.status_code == 409, response.text
        assert [(d["field"], d["rule"]) for d in response.json()["details"]] == [("body.jobName", "unique")]
    assert _jobs(sandbox).count("plan-once") == 1


def test_a_deleted_job_is_gone_the_second_time_and_a_dry_run_deletes_nothing(sandbox, cluster):
    if "plan-once" not in _jobs(sandbox):
        assert submit(sandbox, custom_job("plan-once")).status_code == 200
    refused = _dry(sandbox, "DELETE", "/jobs/plan-once", confirm="plan-once")
    assert refused.status_code == 422 and refused.json()["details"][0]["rule"] == "no_dry_run", refused.text
    assert "plan-once" in _jobs(sandbox)
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/jobs/plan-once", params={"confirm": "plan-once"})
        again = c.delete(f"/api/clusters/{NAME}/jobs/plan-once", params={"confirm": "plan-once"})
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True, deleted.text
    assert again.status_code == 404 and "no training job plan-once" in again.json()["message"], again.text
