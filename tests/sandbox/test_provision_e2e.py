"""provision-cluster: one request, three child executions, one operation that shows every phase."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

BODY = {
    "name": "e2e-prov",
    "availabilityZones": ["us-east-1a", "us-east-1b"],
    "hyperpod": {
        "availabilityZone": "us-east-1a",
        "instanceGroups": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
    },
}


def test_one_request_provisions_control_plane_dependencies_and_hyperpod(sandbox):
    with sandbox.client() as c:
        bad = c.post(
            "/api/clusters/provision", json={**BODY, "hyperpod": {**BODY["hyperpod"], "availabilityZone": "us-east-1z"}}
        )
        op = c.post("/api/clusters/provision", json=BODY).json()["operation"]["id"]
    assert bad.status_code == 422 and bad.json()["details"][0]["field"] == "body.hyperpod.availabilityZone"
    done = sandbox.wait_operation(op, timeout=180)
    assert done["status"] == "SUCCEEDED", done
    phases = {p["name"]: p for p in done["phases"]}
    assert all(p["status"] == "SUCCEEDED" for p in phases.values()), phases
    # the HyperPod pieces that do not need EKS were made while EKS was being created
    assert phases["ExecutionRole"]["endedAt"] < phases["WaitActive"]["endedAt"]
    executions = {
        e["name"]: e["status"]
        for m in sandbox.aws("stepfunctions").list_state_machines()["stateMachines"]
        for e in sandbox.aws("stepfunctions").list_executions(stateMachineArn=m["stateMachineArn"])["executions"]
        if e["name"].startswith(op)
    }
    assert executions == {
        op: "SUCCEEDED",
        f"{op}-cp-1": "SUCCEEDED",
        f"{op}-deps-1": "SUCCEEDED",
        f"{op}-hp-1": "SUCCEEDED",
    }
    cluster = sandbox.aws("sagemaker").describe_cluster(ClusterName="e2e-prov")
    assert cluster["ClusterStatus"] == "InService" and cluster["NodeRecovery"] == "Automatic"
