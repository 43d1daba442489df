"""diagnose_nccl against a real training job in the sandbox: a two-node job hangs with PyTorch's NCCL
watchdog timeout in one pod's log, and that pod's node then reports a GPU fault; the diagnosis names the
NCCL errors on the node with the incident, shows EFA requested and present in one zone, and reads only.
The cluster runs with node recovery off, so HyperPod leaves the faulty node in place for the diagnosis."""

from __future__ import annotations

import json

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body
from tests.sandbox.jobs_support import custom_job, job_view, log_interval

pytestmark = pytest.mark.e2e
NAME = "e2e-nccl"
JOB = "nccl-hang"
READS = ("Describe", "List", "Get", "Query", "Scan")
BODY = cluster_body(NAME, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2}, nodeRecovery="None")


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    with sandbox.client() as c:
        # provisioning installed the dependencies; the training operator is a feature to turn on
        response = c.patch(f"/api/clusters/{NAME}/features", json={"trainingOperator": {"enabled": True}})
        assert response.status_code == 202, response.text
        assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"
    return NAME


@pytest.fixture
def long_runs(sandbox):
    """Steps every 30 simulated seconds, so the fault strikes a job still running."""
    with log_interval(sandbox, 30):
        yield


def _until(check, timeout: float = 90.0):
    return wait_until(check, timeout, reason=f"{check.__name__} did not hold")


def _calls(sandbox) -> tuple[dict[tuple[str, str], int], set[int]]:
    with sandbox.client() as c:
        aws = c.get("/api/sandbox/iam").json()["calls"]
        kube = c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).json()["requests"]
    return {(x["function"], x["action"]): x["count"] for x in aws}, {r["seq"] for r in kube}


def test_a_hung_job_on_a_faulty_node_is_diagnosed_from_its_pods_logs_and_incidents(sandbox, cluster, long_runs):
    with sandbox.client("operator") as c:
        submitted = c.post(f"/api/clusters/{NAME}/jobs", json=custom_job(JOB, replicas=2))
    assert submitted.status_code == 200, submitted.text
    # no log-monitoring rule: the hung job stays hung, as it would on EKS until NCCL's timeout aborts it
    sandbox.faults(jobFault={"cluster": NAME, "job": JOB, "kind": "hang", "atStep": 2})
    view = _until(
        lambda: (
            (v := job_view(sandbox, JOB, NAME))["status"] == "Running"
            and all(p["kubernetesNode"] for p in v["pods"])
            and v
        )
    )
    with sandbox.client("viewer") as c:
        nodes = {n["kubernetesNode"]: n["nodeId"] for n in c.get(f"/api/clusters/{NAME}/nodes").json()["items"]}

        def hung() -> dict | None:
            for pod in view["pods"]:
                logs = c.get(f"/api/clusters/{NAME}/jobs/{JOB}/logs", params={"tail": 50, "pod": pod["name"]})
                if logs.status_code == 200 and "Watchdog caught collective operation timeout" in logs.text:
                    return dict(pod)
            return None

        stuck = _until(hung)
    assert len({p["kubernetesNode"] for p in view["pods"]}) == 2, view["pods"]
    faulty = nodes[stuck["kubernetesNode"]]
    sandbox.faults(nodeFault={"cluster": NAME, "nodeId": faulty, "kind": "gpu"})
    with sandbox.client("viewer") as c:
        _until(lambda: any(i["nodeId"] == faulty for i in c.get(f"/api/clusters/{NAME}/incidents").json()["items"]))

    aws_before, kube_before = _calls(sandbox)
    with sandbox.client("viewer") as c:
        found = c.get(f"/api/clusters/{NAME}/diagnosis/nccl", params={"jobName": JOB})
    aws_after, kube_after = _calls(sandbox)
    assert found.status_code == 200, found.text
    diagnosis = found.json()
    titles = [f["title"] for f in diagnosis["findings"]]
    assert (diagnosis["cause"] or "").startswith("NCCL errors on nodes that had health incidents"), json.dumps(
        diagnosis
    )
    errors = next(f for f in diagnosis["findings"] if f["title"].startswith("NCCL errors in the log of"))
    assert errors["title"] == f"NCCL errors in the log of {stuck['name']}"
    assert any("Watchdog caught collective operation timeout" in line for line in errors["evidence"])
    assert any(t.startswith(f"Node {faulty} had incident") for t in titles), titles
    assert "All 2 nodes are in us-east-1a" in titles
    efa = [t for t in titles if t.startswith("Pod ")]
    assert len(efa) == 2 and all("EFA requested, FI_PROVIDER=efa" in t for t in efa), efa
    assert not [t for t in titles if "no EFA device" in t]
    assert diagnosis["suggestions"] == []

    # what the diagnosis did, from the AWS and Kubernetes call logs: reads only
    api = ("api", "launchpod-api")
    called = {a for (f, a), n in aws_after.items() if f in api and n > aws_before.get((f, a), 0)}
    writes = {a for a in called - {"sts:AssumeRole"} if not a.split(":")[1].startswith(READS)}
    assert called and writes == set(), writes
    with sandbox.client() as c:
        requests = c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).json()["requests"]
    fresh = [r for r in requests if r["seq"] in kube_after - kube_before]
    assert fresh and {r["method"] for r in fresh} == {"GET"}, fresh
    assert any("/log" in r.get("path", "") for r in fresh), fresh  # the pods' logs were read

    with sandbox.client("operator") as c:
        assert c.delete(f"/api/clusters/{NAME}/jobs/{JOB}", params={"confirm": JOB}).status_code == 200
