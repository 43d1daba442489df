"""Training jobs through the sandbox: refused with the feature to enable until the training operator and
KubeRay run; every recipe, its files in the bucket, submits and reaches Succeeded; a recipe whose script or
dataset is not in the bucket fails with its program's error in the job's log; an injected process crash
restarts at process level and the job view shows the budget used; a hang is detected and restarts the job;
a spent budget fails it with the reason; logs read with tail, container and pod, each container of a
two-container pod its own."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.endpoint_support import chat, delete_endpoint
from tests.sandbox.jobs_support import (
    CLAIM,
    LOG_INTERVAL_SECONDS,
    MODEL,
    NAME,
    custom_job,
    download,
    download_model,
    job_view,
    log_interval,
    ready_cluster,
    recipe_inputs,
    upload,
)
from tests.sandbox.jobs_support import submit as _submit

pytestmark = pytest.mark.e2e
_job = custom_job


def _wait(sandbox, job: str, statuses: tuple[str, ...], timeout: float = 90) -> dict:
    return _wait_for(sandbox, job, lambda view: view["status"] in statuses, timeout)


def _delete(sandbox, job: str) -> None:
    with sandbox.client("operator") as c:
        response = c.delete(f"/api/clusters/{NAME}/jobs/{job}", params={"confirm": job})
    assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


@pytest.mark.parametrize(
    ("recipe", "kind"),
    [
        ("pytorch-torchrun", "pytorch"),
        ("llama-factory", "pytorch"),
        ("ms-swift-sft", "pytorch"),
        ("ms-swift-grpo", "pytorch"),
        ("verl-ppo", "ray"),
    ],
)
def test_each_recipe_submits_and_reaches_succeeded(sandbox, cluster, recipe, kind):
    job = f"r-{recipe}"
    inputs = recipe_inputs(sandbox, recipe, job)
    response = _submit(
        sandbox,
        {"jobName": job, "kind": kind, "recipe": recipe, "instanceGroup": "gpu", "storageClaim": CLAIM, **inputs},
    )
    assert response.status_code == 200, response.text
    assert response.json()["recipe"] == recipe and response.json()["instanceType"] == "ml.p5.48xlarge"
    done = _wait(sandbox, job, ("Succeeded", "Failed"))
    assert done["status"] == "Succeeded", done
    workers = [p for p in done["pods"] if "head" not in p["name"] and "submitter" not in p["name"]]
    assert all(p["kubernetesNode"] and p["availabilityZone"] == "us-east-1a" for p in workers), done["pods"]
    if recipe == "llama-factory":
        # Its log, appended at every 5th of the 40 steps and once at the end on the node's disk, is in the
        # bucket once training has ended (a Mountpoint volume refuses the second append).
        log = download(sandbox, f"jobs/{job}/output/trainer_log.jsonl")
        assert log is not None and log.count(b"\n") == 40 // 5 + 1
    with sandbox.client("viewer") as c:
        listed = c.get(f"/api/clusters/{NAME}/jobs").json()["items"]
    assert {"jobName": job, "status": "Succeeded", "recipe": recipe} == {
        k: v for k, v in next(i for i in listed if i["jobName"] == job).items() if k in ("jobName", "status", "recipe")
    }
    _delete(sandbox, job)


def test_a_hyperpod_recipe_and_a_torchtitan_job_run_side_by_side_to_succeeded(sandbox, cluster):
    """AWS's LLMFT recipe and TorchTitan, each with its inputs in the bucket (docs/recipes), one node each."""
    jobs = {"r-hyperpod-llmft": "hyperpod-llmft", "r-torchtitan": "torchtitan"}
    for job, recipe in jobs.items():
        inputs = recipe_inputs(sandbox, recipe, job)
        body = {"jobName": job, "recipe": recipe, "instanceGroup": "gpu", "storageClaim": CLAIM, **inputs}
        response = _submit(sandbox, body)
        assert response.status_code == 200, response.text
        assert response.json()["recipe"] == recipe
    for job in jobs:
        done = _wait(sandbox, job, ("Succeeded", "Failed"))
        assert done["status"] == "Succeeded", done
        _delete(sandbox, job)


def _log(sandbox, job: str, pod: str) -> str:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/jobs/{job}/logs", params={"pod": pod, "tail": 5000})
    assert response.status_code == 200, response.text
    return "\n".join(response.json()["lines"])


def test_a_torchrun_recipe_whose_script_is_not_in_the_bucket_fails_with_pythons_error(sandbox, cluster):
    body = {"jobName": "no-script", "recipe": "pytorch-torchrun", "instanceGroup": "gpu", "storageClaim": CLAIM}
    assert _submit(sandbox, {**body, "runPolicy": {"jobMaxRetryCount": 2}}).status_code == 200
    done = _wait(sandbox, "no-script", ("Succeeded", "Failed"))
    assert done["status"] == "Failed" and done["reason"] == "JobMaxRetryCountExceeded", done
    assert done["budget"]["retriesUsed"] == 2
    assert {p["phase"] for p in done["pods"]} == {"Failed"}, done["pods"]
    log = _log(sandbox, "no-script", "no-script-pods-0")
    script = "/data/jobs/no-script/train.py"
    assert f"python: can't open file '{script}': [Errno 2] No such file or directory" in log, log
    assert f"{script} FAILED" in log and "'loss'" not in log
    _delete(sandbox, "no-script")


def test_a_llama_factory_job_whose_dataset_is_not_in_the_bucket_fails_with_llama_factorys_error(sandbox, cluster):
    job = "lf-no-data"
    recipe_inputs(sandbox, "llama-factory", job, dataset="lf-data")
    body = {"jobName": job, "recipe": "llama-factory", "instanceGroup": "gpu", "storageClaim": CLAIM, "model": MODEL}
    config = f"model_name_or_path: /data/models/{MODEL}\ndataset: missing\ndataset_dir: /data/datasets/missing\n"
    upload(sandbox, f"jobs/{job}/config.yaml", config.encode())  # the YAML names a dataset never uploaded
    assert _submit(sandbox, {**body, "runPolicy": {"jobMaxRetryCount": 1}}).status_code == 200
    done = _wait(sandbox, job, ("Succeeded", "Failed"))
    assert done["status"] == "Failed" and done["reason"] == "JobMaxRetryCountExceeded", done
    info = "/data/datasets/missing/dataset_info.json"
    assert f"ValueError: Cannot open {info} due to [Errno 2] No such file or directory: '{info}'." in _log(
        sandbox, job, f"{job}-pods-0"
    )
    _delete(sandbox, job)


def test_a_verl_job_whose_dataset_is_not_in_the_bucket_fails_with_hugging_face_datasets_error(sandbox, cluster):
    download_model(sandbox)
    body = {"jobName": "verl-no-data", "kind": "ray", "recipe": "verl-ppo", "instanceGroup": "gpu"}
    body |= {"storageClaim": CLAIM, "model": MODEL, "dataset": "never-uploaded"}
    assert _submit(sandbox, body).status_code == 200
    done = _wait(sandbox, "verl-no-data", ("Succeeded", "Failed"))
    missing = "FileNotFoundError: Unable to find '/data/datasets/never-uploaded/train.parquet'"
    assert done["status"] == "Failed", done
    assert done["message"].startswith("Job entrypoint command failed with exit code 1") and missing in done["message"]
    log = _log(sandbox, "verl-no-data", "verl-no-data-submitter")
    assert missing in log and "Job 'verl-no-data-" in log and "' failed" in log
    _delete(sandbox, "verl-no-data")


@pytest.fixture
def long_runs(sandbox):
    """Training steps every 30 simulated seconds (a 6 s run) leave time to inject faults into a running job."""
    with log_interval(sandbox, 30):
        yield


def _wait_for(sandbox, job: str, done, timeout: float = 90) -> dict:
    """The job's view once ``done(view)`` holds; a loaded machine reconciles late, hence the generous wait."""
    seen: dict = {}

    def view() -> dict | None:
        seen.update(job_view(sandbox, job))
        return dict(seen) if done(seen) else None

    return dict(
        wait_until(
            view,
            timeout,
            reason=lambda: str({k: seen.get(k) for k in ("status", "reason", "budget", "hangDetections", "message")}),
        )
    )


def _fault(sandbox, job: str, kind: str, at_step: int) -> None:
    """Queue a fault that strikes once the job has trained ``at_step`` steps (training holds there until it
    does, so a short run cannot finish before it)."""
    sandbox.faults(jobFault={"cluster": NAME, "job": job, "kind": kind, "atStep": at_step})


def test_a_process_crash_restarts_at_process_level_and_shows_the_budget(sandbox, cluster, long_runs):
    policy = {
        "jobMaxRetryCount": 3,
        "restartPolicy": {"numRestartBeforeFullJobRestart": 1, "evalPeriodSeconds": 21600, "maxFullJobRestarts": 1},
    }
    assert _submit(sandbox, _job("crash", runPolicy=policy)).status_code == 200
    # The first crash is restarted in place; a second in the same window escalates to a full job restart.
    _fault(sandbox, "crash", "processCrash", 2)
    _fault(sandbox, "crash", "processCrash", 4)
    view = _wait_for(sandbox, "crash", lambda v: v["budget"]["fullJobRestarts"] > 0 or v["status"] == "Failed")
    assert view["budget"] == {
        "processRestarts": 1,
        "fullJobRestarts": 1,
        "retriesUsed": 2,
        "retriesLeft": 1,
        "jobMaxRetryCount": 3,
        "numRestartBeforeFullJobRestart": 1,
        "maxFullJobRestarts": 1,
    }
    reasons = [e["reason"] for e in view["events"]]
    assert "ProcessLevelRestart" in reasons and "FullJobRestart" in reasons, reasons
    done = _wait(sandbox, "crash", ("Succeeded", "Failed"))
    assert done["status"] == "Succeeded", done
    _delete(sandbox, "crash")


def test_a_hang_is_detected_from_the_log_pattern_and_restarts_the_job(sandbox, cluster, long_runs):
    policy = {
        "jobMaxRetryCount": 2,
        "logMonitoringConfiguration": [
            {"name": "JobHangingDetection", "logPattern": ".*'loss':.*", "expectedRecurringFrequencyInSeconds": 60}
        ],
    }
    assert _submit(sandbox, _job("hang", runPolicy=policy)).status_code == 200
    _fault(sandbox, "hang", "hang", 2)  # detection follows 60 simulated s without a loss line
    view = _wait_for(sandbox, "hang", lambda v: v["hangDetections"] > 0 and v["budget"]["retriesUsed"] > 0)
    assert any(e["reason"] == "LogStateHanging_JobHangingDetection" for e in view["events"])
    assert view["budget"]["retriesUsed"] == 1
    end = _wait(sandbox, "hang", ("Succeeded", "Failed"))
    assert end["status"] == "Succeeded", {k: end.get(k) for k in ("status", "reason", "message", "budget")}
    _delete(sandbox, "hang")


def test_a_spent_retry_budget_fails_the_job_with_the_reason(sandbox, cluster):
    assert _submit(sandbox, _job("spent", runPolicy={"jobMaxRetryCount": 1})).status_code == 200
    # Two crashes queued before it runs: the operator meets them one after the other once it is Running.
    for step in (1, 2):
        _fault(sandbox, "spent", "processCrash", step)
    done = _wait(sandbox, "spent", ("Failed", "Succeeded"))
    assert done["status"] == "Failed", done
    assert done["reason"] == "JobMaxRetryCountExceeded"
    assert "1 of jobMaxRetryCount 1" in done["message"]
    assert done["budget"]["retriesLeft"] == 0 and done["budget"]["processRestarts"] == 1
    _delete(sandbox, "spent")


def test_logs_read_with_tail_pod_and_container(sandbox, cluster):
    assert _submit(sandbox, _job("logs")).status_code == 200
    _wait(sandbox, "logs", ("Succeeded", "Failed"))
    with sandbox.client("viewer") as c:
        logs = c.get(f"/api/clusters/{NAME}/jobs/logs/logs", params={"tail": 3})
        assert logs.status_code == 200, logs.text
        body = logs.json()
        assert body["pod"] == "logs-pods-0" and body["container"] == "pytorch" and len(body["lines"]) == 3
        assert body["lines"][-1].endswith("final checkpoint written")
        assert "'loss':" in body["lines"][0]
        # since counts back from now (simulated seconds): the job has ended, so its last second logged nothing
        assert c.get(f"/api/clusters/{NAME}/jobs/logs/logs", params={"since": 1}).json()["lines"] == []
        whole = c.get(f"/api/clusters/{NAME}/jobs/logs/logs", params={"since": 86400, "tail": 5000}).json()["lines"]
        assert len(whole) == 42 and whole[0].startswith("[hyperpod-elastic-agent] starting")
        wrong = c.get(f"/api/clusters/{NAME}/jobs/logs/logs", params={"container": "sidecar"})
        assert wrong.status_code == 422 and "pytorch" in wrong.json()["message"]
    _delete(sandbox, "logs")
    with sandbox.client("viewer") as c:
        assert c.get(f"/api/clusters/{NAME}/jobs/logs").status_code == 404


def test_a_two_container_pods_logs_read_per_container_and_a_missing_or_ambiguous_one_names_them(sandbox, cluster):
    """A job applied with kubectl from Launchpod's own manifest plus a log-shipping sidecar (listed first):
    the training lines are the hyperpodrun container's, the sidecar's are its own, and a log read that
    names no container, or one the pod does not have, is a 422 naming both."""
    from launchpod.contracts.jobs import SubmitJobInput
    from launchpod.domain.jobs import manifests

    from tests.instance_facts import facts

    job = "two-containers"
    obj = manifests.build(SubmitJobInput(name=NAME, **_job(job)), facts("ml.p5.48xlarge"), None)
    pod_spec = obj["spec"]["replicaSpecs"][0]["template"]["spec"]
    pod_spec["containers"].insert(
        0, {"name": "log-shipper", "image": "public.ecr.aws/aws-observability/aws-for-fluent-bit:stable"}
    )
    k8s.CustomObjectsApi(sandbox.kube(NAME)).create_namespaced_custom_object(
        "sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", obj
    )
    pod = f"{job}-pods-0"
    shipped = ["fluent-bit: flushed 12 records to CloudWatch", "fluent-bit: flushed 3 records to CloudWatch"]
    with sandbox.client() as c:
        # 404 until the operator has made the pod
        written = wait_until(
            lambda: (
                (
                    r := c.post(
                        "/api/sandbox/pods/log",
                        json={"cluster": NAME, "pod": pod, "container": "log-shipper", "lines": shipped},
                    )
                ).status_code
                != 404
                and r
            ),
            30,
            reason=f"{pod} was never made",
        )
        assert written.status_code == 200, written.text
    assert _wait(sandbox, job, ("Succeeded", "Failed"))["status"] == "Succeeded"
    path = f"/api/clusters/{NAME}/jobs/{job}/logs"
    with sandbox.client("viewer") as c:
        training = c.get(path, params={"pod": pod, "container": "pytorch", "tail": 5000})
        assert training.status_code == 200, training.text
        lines = training.json()["lines"]
        assert lines[0].startswith("[hyperpod-elastic-agent] starting") and lines[-1].endswith("checkpoint written")
        assert not [line for line in lines if "fluent-bit" in line]
        sidecar = c.get(path, params={"pod": pod, "container": "log-shipper"}).json()
        assert (sidecar["container"], sidecar["lines"], sidecar["retained"]) == ("log-shipper", shipped, True)
        for params in ({"pod": pod}, {"pod": pod, "container": "agent"}):
            refused = c.get(path, params=params)
            assert refused.status_code == 422, refused.text
            assert "log-shipper, pytorch" in refused.json()["message"], refused.json()
            assert refused.json()["details"][0]["field"] == "query.container"
    _delete(sandbox, job)


def test_more_gpus_per_node_than_the_type_has_is_422_naming_the_count(sandbox, cluster):
    response = _submit(sandbox, _job("greedy", nprocPerNode=16))
    assert response.status_code == 422, response.text
    assert "ml.p5.48xlarge has 8 GPUs per node" in response.json()["message"]
    viewer = _submit(sandbox, _job("viewer-job"), role="viewer")
    assert viewer.status_code == 403
    with sandbox.client("operator") as c:
        unconfirmed = c.delete(f"/api/clusters/{NAME}/jobs/whatever")
    assert unconfirmed.status_code == 422 and "confirm" in unconfirmed.json()["message"]


def test_a_node_failure_restarts_the_whole_job_without_a_process_restart(sandbox, cluster, long_runs):
    assert _submit(sandbox, _job("node", runPolicy={"jobMaxRetryCount": 2})).status_code == 200
    _fault(sandbox, "node", "nodeFailure", 2)
    view = _wait_for(sandbox, "node", lambda v: v["budget"]["fullJobRestarts"] > 0 or v["status"] == "Failed")
    assert view["budget"]["processRestarts"] == 0 and view["budget"]["retriesLeft"] == 1
    assert any(e["reason"] == "FullJobRestart" and "node failure" in e["message"] for e in view["events"])
    assert _wait(sandbox, "node", ("Succeeded", "Failed"))["status"] == "Succeeded"
    _delete(sandbox, "node")


def test_nccl_diagnosis_finds_a_running_jobs_pods_and_their_efa(sandbox, cluster, long_runs):
    """diagnose_nccl reads the pods Launchpod submitted for the job: their nodes, zone and EFA settings."""
    assert _submit(sandbox, custom_job("nccl-check")).status_code == 200
    assert _wait(sandbox, "nccl-check", ("Running",))["status"] == "Running"
    with sandbox.client("viewer") as c:
        found = c.get(f"/api/clusters/{NAME}/diagnosis/nccl", params={"jobName": "nccl-check"}).json()
    titles = [f["title"] for f in found["findings"]]
    assert not any(t.startswith("No pods of job") for t in titles), titles
    assert any(t.startswith("All ") and "nodes are in us-east-1a" in t for t in titles), titles
    assert any("EFA requested, FI_PROVIDER=efa" in t for t in titles), titles
    _delete(sandbox, "nccl-check")


def test_a_job_fault_at_a_step_that_is_not_a_whole_number_is_422(sandbox):
    with sandbox.client() as c:
        for bad in (0, 1.5, "2", True):
            response = c.post(
                "/api/sandbox/faults", json={"jobFault": {"cluster": NAME, "job": "j", "kind": "hang", "atStep": bad}}
            )
            assert response.status_code == 422 and "atStep" in response.json()["message"], (bad, response.text)
        assert c.get("/api/sandbox/faults").json()["jobFaults"] == []


def _recovery(view: dict) -> tuple[float, int]:
    """(simulated seconds, steps done again) of the job's one recorded recovery (its TrainingRecovered event)."""
    found = [e["message"] for e in view["events"] if e["reason"] == "TrainingRecovered"]
    assert len(found) == 1, view["events"]
    words = found[0].split(" again ")[1].split()  # "<n> s after the fault; <k> step(s) done again"
    return float(words[0]), int(found[0].split("; ")[-1].split()[0])


def test_a_checkpointless_job_recovers_a_failed_node_from_its_peers_sooner_than_a_checkpoint_restart(sandbox, cluster):
    """Checkpointless (hyperpodrun --inprocess-restart on both nodes) replaces only the failed node's pod and
    resumes at the step it had reached; the same job without it restarts whole from its last checkpoint (step 0
    here: the code checkpoints every 10 steps) and does those 6 steps again, so its recovery takes longer."""
    ckptless = custom_job("ckptless", replicas=2, checkpointless={"inProcessRestartTimeoutSeconds": 600})
    with sandbox.client("operator") as c:
        plan = c.post(f"/api/clusters/{NAME}/jobs", params={"dryRun": "true"}, json=ckptless).json()
    assert any("recovered from its 1 peer(s)" in s["reason"] for s in plan["steps"]), plan
    # A step every 200 simulated seconds: the restart's 6 steps done again are 1,200 s (6 real seconds) more than
    # the checkpointless recovery, a margin a loaded machine's stalls (each real second is 200 simulated) cannot
    # close; at 20 s a step the margin was 0.6 real seconds, and a stall reversed the order once.
    sandbox.faults(jobSteps=8, jobCheckpointEverySteps=10, jobLogIntervalSeconds=200)
    try:
        times, views = {}, {}
        for job, body in (("ckptless", ckptless), ("restarted", custom_job("restarted", replicas=2))):
            assert _submit(sandbox, body).status_code == 200
            _fault(sandbox, job, "nodeFailure", 6)
            view = _wait(sandbox, job, ("Succeeded", "Failed"))
            assert view["status"] == "Succeeded", view
            times[job], views[job] = _recovery(view), view
            _delete(sandbox, job)
        assert times["ckptless"][1] == 0 and times["restarted"][1] == 6, times
        assert times["ckptless"][0] < times["restarted"][0], times
        assert any(e["reason"] == "CheckpointlessRecovery" for e in views["ckptless"]["events"])
        assert any(e["reason"] == "FullJobRestart" for e in views["restarted"]["events"])
    finally:
        sandbox.faults(jobSteps=40, jobCheckpointEverySteps=1, jobLogIntervalSeconds=LOG_INTERVAL_SECONDS)


def test_a_model_larger_than_one_node_is_served_across_both_p5_nodes(sandbox, cluster):
    """The jobs cluster's two p5 nodes serve one SGLang model with tensor parallelism over their 16 GPUs (one
    Deployment per node rank, docs/serving.md): Ready only once both ranks run, one rank per node, answering
    through the OpenAI-compatible path; its delete removes every rank."""
    endpoint = "big-model"
    worker = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 8, "port": 30000, "args": ["--served-model-name", "big"]}
    body = {
        "endpoint": endpoint,
        "kind": "container",
        "instanceType": "ml.p5.48xlarge",
        "container": {"worker": worker, "multiNode": {"nodes": 2}},
    }
    with sandbox.client("operator") as c:
        too_many = c.post(
            f"/api/clusters/{NAME}/endpoints",
            json={**body, "container": {**body["container"], "multiNode": {"nodes": 3}}},
        )
        assert too_many.status_code == 422 and too_many.json()["details"][0]["rule"] == "nodes_of_type", too_many.text
        started = c.post(f"/api/clusters/{NAME}/endpoints", json=body)
    assert started.status_code == 202, started.text
    done = sandbox.wait_operation(started.json()["operation"]["id"], timeout=90)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    with sandbox.client("viewer") as c:
        view = c.get(f"/api/clusters/{NAME}/endpoints/{endpoint}").json()
    assert view["status"] == "Ready" and len({p["kubernetesNode"] for p in view["pods"]}) == 2, view
    assert chat(sandbox, NAME, endpoint, "big", "across nodes", max_tokens=32) == "[big] You said: across nodes"
    delete_endpoint(sandbox, NAME, endpoint, reason="every rank's Deployment is gone")
