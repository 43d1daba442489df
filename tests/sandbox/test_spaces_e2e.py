"""Spaces (HyperPod Spaces) through the sandbox, on the shared jobs cluster: a Space reads, at /data, the
output a job wrote there; it stops and starts again; one left idle past its timeout stops by itself; and
deleting it removes its pod while the bucket keeps the data."""

from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import CLAIM, NAME, download, log_interval, ready_cluster, submit, upload

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _space(sandbox, space: str) -> dict:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/spaces/{space}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def _until(sandbox, space: str, status: str) -> dict:
    return wait_until(lambda: (v := _space(sandbox, space))["status"] == status and v, 60, 0.1, f"{space} {status}")


def _contents(api: k8s.CoreV1Api, service: str, path: str) -> tuple[int, dict]:
    """``kubectl port-forward`` to the Space's server, then Jupyter's Contents API, here through the API
    server's Service proxy (the same Service and port)."""
    try:
        answer = api.connect_get_namespaced_service_proxy_with_path(
            f"{service}:8888", "default", f"api/contents/{path}", _preload_content=False
        )
    except k8s.ApiException as e:
        return e.status, json.loads(e.body or "{}")
    return answer.status, json.loads(answer.data)


def _llama_factory_inputs(sandbox, job: str) -> dict:
    """What the llama-factory recipe reads (docs/recipes/llama-factory.md), uploaded as a user would: a model
    folder of its own (only its config.json is read before training starts), a dataset and the config."""
    model, dataset = "e2e/space-model", "space-demo"
    upload(sandbox, f"models/{model}/config.json", b"{}")
    upload(sandbox, f"datasets/{dataset}/dataset_info.json", b'{"%s": {"file_name": "data.json"}}' % dataset.encode())
    upload(sandbox, f"datasets/{dataset}/data.json", b'[{"instruction": "hi", "output": "hello"}]')
    config = (
        f"model_name_or_path: /data/models/{model}\nstage: sft\ndo_train: true\nfinetuning_type: full\n"
        f"dataset: {dataset}\ndataset_dir: /data/datasets/{dataset}\ntemplate: qwen\n"
        f"output_dir: /data/jobs/{job}/output\nlogging_steps: 5\n"
    )
    upload(sandbox, f"jobs/{job}/config.yaml", config.encode())
    return {"model": model, "dataset": dataset}


def test_a_space_reads_at_data_what_a_job_wrote_there_and_stops_and_starts(sandbox, cluster):
    job = "sp-train"
    inputs = _llama_factory_inputs(sandbox, job)
    body = {"jobName": job, "recipe": "llama-factory", "instanceGroup": "gpu", "storageClaim": CLAIM, **inputs}
    space = {"spaceName": "alice-nb", "storageClaim": CLAIM, "idleTimeoutMinutes": 600}
    with sandbox.client("operator") as c:
        planned = c.post(f"/api/clusters/{NAME}/spaces", params={"dryRun": "true"}, json=space)
        assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
        assert c.get(f"/api/clusters/{NAME}/spaces").json()["items"] == []
        made = c.post(f"/api/clusters/{NAME}/spaces", json=space)  # it starts while the job trains
    assert made.status_code == 200, made.text
    assert made.json()["dataPath"] == "/data" and made.json()["ide"] == "jupyterlab"

    with log_interval(sandbox, 1), sandbox.client("viewer") as c:  # a training step per simulated second
        assert submit(sandbox, body).status_code == 200
        wait_until(
            lambda: c.get(f"/api/clusters/{NAME}/jobs/{job}").json()["status"] in ("Succeeded", "Failed"), 90, 0.1
        )
        assert c.get(f"/api/clusters/{NAME}/jobs/{job}").json()["status"] == "Succeeded"
    written = download(sandbox, f"jobs/{job}/output/trainer_log.jsonl")
    assert written
    running = _until(sandbox, "alice-nb", "Running")
    assert running["connect"].startswith("kubectl port-forward -n default service/workspace-alice-nb-service 8888")

    service, api = "workspace-alice-nb-service", k8s.CoreV1Api(sandbox.kube(NAME))
    status, found = _contents(api, service, f"data/jobs/{job}/output/trainer_log.jsonl")
    assert status == 200 and found["type"] == "file", found
    assert found["content"].encode() == written
    status, listed = _contents(api, service, f"data/jobs/{job}/output")
    assert status == 200 and [e["name"] for e in listed["content"]] == ["trainer_log.jsonl"]
    assert _contents(api, service, "data/datasets/nowhere")[0] == 404

    with sandbox.client("operator") as c:
        stop = c.patch(f"/api/clusters/{NAME}/spaces/alice-nb", json={"desiredStatus": "Stopped"})
        assert stop.status_code == 200, stop.text
        _until(sandbox, "alice-nb", "Stopped")
        again = c.patch(f"/api/clusters/{NAME}/spaces/alice-nb", json={"desiredStatus": "Stopped"})
        assert again.json()["status"] == "NOOP"
        assert c.patch(f"/api/clusters/{NAME}/spaces/alice-nb", json={"desiredStatus": "Running"}).status_code == 200
    _until(sandbox, "alice-nb", "Running")
    assert _contents(api, service, f"data/jobs/{job}/output/trainer_log.jsonl")[0] == 200

    with sandbox.client("operator") as c:
        gone = c.delete(f"/api/clusters/{NAME}/spaces/alice-nb", params={"confirm": "alice-nb"})
        assert gone.status_code == 200 and gone.json()["deleted"], gone.text
        wait_until(lambda: c.get(f"/api/clusters/{NAME}/spaces/alice-nb").status_code == 404, 30, 0.1, "deleted")
        c.delete(f"/api/clusters/{NAME}/jobs/{job}", params={"confirm": job})
    assert download(sandbox, f"jobs/{job}/output/trainer_log.jsonl") == written


def test_a_space_left_idle_past_its_timeout_stops_by_itself(sandbox, cluster):
    with sandbox.client("operator") as c:
        made = c.post(
            f"/api/clusters/{NAME}/spaces", json={"spaceName": "idle-nb", "ide": "code-editor", "idleTimeoutMinutes": 1}
        )
    assert made.status_code == 200, made.text
    stopped = _until(sandbox, "idle-nb", "Stopped")
    assert stopped["desiredStatus"] == "Stopped" and stopped["ide"] == "code-editor"
    with sandbox.client("operator") as c:
        assert c.delete(f"/api/clusters/{NAME}/spaces/idle-nb", params={"confirm": "idle-nb"}).status_code == 200
