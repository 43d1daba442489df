"""One cluster for the training-job tests (REST and MCP): two ml.p5.48xlarge nodes, the training operator,
KubeRay and the shared bucket's claim. Made once per sandbox; before the operators are installed, a
submission is refused with 409 naming what to enable."""

from __future__ import annotations

import time

NAME = "e2e-jobs"
CLAIM = "shared"
BODY = {
    "name": NAME,
    "availabilityZones": ["us-east-1a", "us-east-1b"],
    "hyperpod": {
        "availabilityZone": "us-east-1a",
        "instanceGroups": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2}],
    },
}


def custom_job(job: str, **extra) -> dict:
    return {
        "jobName": job,
        "instanceGroup": "gpu",
        "image": "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"],
        **extra,
    }


def submit(sandbox, body: dict, role: str = "operator"):
    with sandbox.client(role) as c:
        return c.post(f"/api/clusters/{NAME}/jobs", json=body)


def ready_cluster(sandbox) -> str:
    with sandbox.client("viewer") as c:
        if c.get(f"/api/clusters/{NAME}").status_code == 200:
            return NAME
    with sandbox.client() as c:
        op = c.post("/api/clusters/provision", json=BODY).json()["operation"]["id"]
    assert sandbox.wait_operation(op, timeout=180)["status"] == "SUCCEEDED"

    # Before the operators are there: 409 naming what to enable.
    refused = submit(sandbox, custom_job("too-early"))
    assert refused.status_code == 409, refused.text
    assert "trainingOperator" in refused.json()["message"] and "features" in refused.json()["message"]
    refused = submit(sandbox, {**custom_job("too-early"), "kind": "ray"})
    assert refused.status_code == 409, refused.text
    assert "KubeRay" in refused.json()["message"] and "includeOptional" in refused.json()["message"]

    with sandbox.client() as c:
        for method, path, body in [
            ("PATCH", f"/api/clusters/{NAME}/features", {"trainingOperator": {"enabled": True}}),
            ("POST", f"/api/clusters/{NAME}/dependencies", {"includeOptional": True}),
            ("POST", f"/api/clusters/{NAME}/storage", {"kind": "s3", "storageName": CLAIM}),
        ]:
            response = c.request(method, path, json=body)
            assert response.status_code == 202, response.text
            done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)
            assert done["status"] == "SUCCEEDED", done
    # KubeRay's operator Deployment becomes ready once its pod runs: until then a RayJob is a 409.
    deadline = time.monotonic() + 90
    probe = {"jobName": "probe", "kind": "ray", "recipe": "verl-ppo", "instanceGroup": "nope", "storageClaim": CLAIM}
    while submit(sandbox, probe).status_code == 409:
        assert time.monotonic() < deadline, "KubeRay never became ready"
        time.sleep(0.2)
    sandbox.faults(jobLogIntervalSeconds=10)
    return NAME
