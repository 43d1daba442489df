"""SageMaker managed MLflow through the sandbox: without a tracking server GET says how to make one, a bad
name is 422 and a viewer may not make one; PUT starts configure-mlflow, whose phases make the role
and the server (artifacts under mlflow/ in the shared bucket, a role SageMaker may assume) and follow it
to Created; the same PUT again is NOOP, dryRun plans without starting; a job submitted then
gets MLFLOW_TRACKING_URI (the server's ARN) and MLFLOW_EXPERIMENT_NAME, logs a run with a loss and a
throughput per step (its metrics read both back), and its view links that run through a presigned URL; a
server being deleted cannot be picked."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.http_support import next_step
from tests.sandbox.jobs_support import CLAIM, NAME, ready_cluster, recipe_inputs
from tests.sandbox.jobs_support import submit as _submit

pytestmark = pytest.mark.e2e
PATH = f"/api/clusters/{NAME}/mlflow"


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _get(sandbox, path: str = PATH):
    with sandbox.client("viewer") as c:
        return c.get(path)


def _until(check, timeout: float = 90):
    return wait_until(check, timeout, reason=f"{check.__name__} did not hold")


def test_without_a_server_get_says_how_to_make_one_and_bad_requests_are_refused(sandbox, cluster):
    missing = _get(sandbox)
    assert missing.status_code == 404, missing.text
    assert "set one up first" in missing.json()["message"]
    assert next_step(missing) == f"PUT /api/clusters/{NAME}/mlflow"
    with sandbox.client("operator") as c:
        bad = c.put(PATH, json={"trackingServerName": "-not_a name"})
    assert bad.status_code == 422, bad.text
    assert bad.json()["details"][0]["field"].endswith("trackingServerName")
    with sandbox.client("viewer") as c:
        assert c.put(PATH, json={}).status_code == 403


def test_put_creates_a_server_that_becomes_created_and_a_second_put_is_noop(sandbox, cluster):
    with sandbox.client("operator") as c:
        plan = c.put(PATH, params={"dryRun": "true"}, json={"size": "Small"})
        assert plan.status_code == 200, plan.text
        assert [(s["action"], s["phase"]) for s in plan.json()["steps"]] == [
            ("create", "ServerRole"),
            ("create", "TrackingServer"),
        ]
        assert _get(sandbox).status_code == 404  # the dry run started nothing
        made = c.put(PATH, json={"size": "Small"})
    assert made.status_code == 202, made.text
    done = sandbox.wait_operation(made.json()["operation"]["id"], timeout=120)
    assert done["status"] == "SUCCEEDED", done
    assert [p["name"] for p in done["phases"] if p["status"] == "SUCCEEDED"][:3] == [
        "ServerRole",
        "TrackingServer",
        "WaitTrackingServer",
    ]
    server = _get(sandbox).json()
    assert server["status"] == "Created", server
    assert server["artifactStoreUri"].startswith("s3://sagemaker-") and server["artifactStoreUri"].endswith("/mlflow/")
    assert server["url"].startswith("https://t-") and "/auth?authToken=" in server["url"]
    listed = sandbox.aws("sagemaker").list_mlflow_tracking_servers
    before = listed()["TrackingServerSummaries"]
    with sandbox.client("operator") as c:
        again = c.put(PATH, json={})
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    assert listed()["TrackingServerSummaries"] == before  # not made twice

    role_name = (
        sandbox.aws("sagemaker")
        .describe_mlflow_tracking_server(TrackingServerName=server["trackingServerName"])["RoleArn"]
        .rsplit("/", 1)[-1]
    )
    role = sandbox.aws("iam").get_role(RoleName=role_name)["Role"]
    trust = role["AssumeRolePolicyDocument"]
    trust = json.loads(urllib.parse.unquote(trust)) if isinstance(trust, str) else trust
    assert trust["Statement"][0]["Principal"]["Service"] == "sagemaker.amazonaws.com"


def test_a_job_submitted_then_gets_the_env_logs_a_run_and_its_view_links_that_run(sandbox, cluster):
    server = _get(sandbox).json()
    assert server["status"] == "Created", server  # made by the test before
    job = "mlflow-run"
    recipe_inputs(sandbox, "pytorch-torchrun", job)
    response = _submit(
        sandbox, {"jobName": job, "recipe": "pytorch-torchrun", "instanceGroup": "gpu", "storageClaim": CLAIM}
    )
    assert response.status_code == 200, response.text
    obj = k8s.CustomObjectsApi(sandbox.kube(NAME)).get_namespaced_custom_object(
        "sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", job
    )
    env = {e["name"]: e["value"] for e in obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["env"]}
    assert env["MLFLOW_TRACKING_URI"] == server["trackingServerArn"]
    assert env["MLFLOW_EXPERIMENT_NAME"] == job

    def done():
        view = _get(sandbox, f"/api/clusters/{NAME}/jobs/{job}").json()
        return view if view["status"] in ("Succeeded", "Failed") else None

    view = _until(done)
    assert view and view["status"] == "Succeeded", view
    assert view["mlflow"]["trackingServerArn"] == server["trackingServerArn"]
    assert view["mlflow"]["experiment"] == job
    assert view["mlflow"]["url"].startswith("https://t-") and view["mlflow"]["url"] != server["url"]  # one-time

    with sandbox.client() as c:
        runs = c.get("/api/sandbox/mlflow/runs", params={"trackingServer": server["trackingServerName"]}).json()
    [run] = [r for r in runs["runs"] if r["runName"] == job]
    assert run["experiment"] == job and run["params"]["recipe"] == "pytorch-torchrun"
    # the view links the job's own run: its presigned URL, with the MLflow UI's route to the run
    assert (view["mlflow"]["runId"], view["mlflow"]["experimentId"]) == (run["runId"], run["experimentId"])
    assert run["experimentId"] not in ("", "0")  # the job's experiment, not MLflow's Default
    assert (
        view["mlflow"]["url"]
        .split("/auth?authToken=")[1]
        .endswith(f"#/experiments/{run['experimentId']}/runs/{run['runId']}")
    )
    steps = [p["step"] for p in run["metrics"]["loss"]]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) >= 2
    # the job's metrics chart that loss, read back from the run (MLflow's metric history)
    with sandbox.client("viewer") as c:
        metrics = c.get(f"/api/clusters/{NAME}/jobs/{job}/metrics", params={"minutes": 15, "points": "true"})
    assert metrics.status_code == 200, metrics.text
    [loss] = [s for s in metrics.json()["series"] if s["metric"] == "loss"]
    assert loss["labels"] == {"source": "mlflow", "run": run["runId"]}
    assert [v for _, v in loss["points"]] == [p["value"] for p in run["metrics"]["loss"]]
    # and its throughput, logged by the trainer at every step under the first key Launchpod reads
    [throughput] = [s for s in metrics.json()["series"] if s["metric"] == "throughput"]
    assert throughput["unit"] == "tokens/s"
    assert throughput["labels"] == {"source": "mlflow", "run": run["runId"], "key": "tokens_per_second"}
    logged = [p["value"] for p in run["metrics"]["tokens_per_second"]]
    assert [v for _, v in throughput["points"]] == logged and len(logged) == len(steps)
    assert throughput["summary"]["last"] > logged[0] > 0  # faster after the first steps' warm-up
    with sandbox.client("operator") as c:
        c.delete(f"/api/clusters/{NAME}/jobs/{job}", params={"confirm": job})


def test_a_server_being_deleted_cannot_be_picked(sandbox, cluster):
    sm = sandbox.aws("sagemaker")
    role = sm.list_mlflow_tracking_servers()["TrackingServerSummaries"]
    assert role, "the previous test made the cluster's server"
    described = sm.describe_mlflow_tracking_server(TrackingServerName=role[0]["TrackingServerName"])
    sm.create_mlflow_tracking_server(
        TrackingServerName="going-away", ArtifactStoreUri=described["ArtifactStoreUri"], RoleArn=described["RoleArn"]
    )
    sm.delete_mlflow_tracking_server(TrackingServerName="going-away")
    with sandbox.client("operator") as c:
        refused = c.put(PATH, json={"trackingServerName": "going-away"})
    assert refused.status_code == 409, refused.text
    assert "is Deleting" in refused.json()["message"] and "another trackingServerName" in refused.json()["message"]
