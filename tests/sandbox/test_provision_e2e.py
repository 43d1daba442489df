"""provision-cluster: one request, four child executions (storage because it is asked for), one operation
that shows every phase; a child that fails resumes on retry where it stopped; then one phase re-run alone
with the settings the provision recorded."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.e2e

BODY = {
    **cluster_body("e2e-prov", {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}),
    "storage": {"kind": "s3", "storageName": "shared", "prefix": "datasets"},
}


def _executions(sandbox, prefix: str) -> dict[str, str]:
    sfn = sandbox.aws("stepfunctions")
    return {
        e["name"]: e["status"]
        for m in sfn.list_state_machines()["stateMachines"]
        for e in sfn.list_executions(stateMachineArn=m["stateMachineArn"])["executions"]
        if e["name"].startswith(prefix)
    }


@pytest.fixture(scope="module")
def provisioned(sandbox):
    with sandbox.client() as c:
        bad = c.post(
            "/api/clusters/provision", json={**BODY, "hyperpod": {**BODY["hyperpod"], "availabilityZone": "us-east-1z"}}
        )
        assert bad.status_code == 422 and bad.json()["details"][0]["field"] == "body.hyperpod.availabilityZone"
        # the control-plane child fails once (EKS refuses a zone); a retry resumes it and runs the rest
        sandbox.faults(failNextEksCreate=True)
        op = c.post("/api/clusters/provision", json=BODY).json()["operation"]["id"]
        assert sandbox.wait_operation(op, timeout=180)["status"] == "FAILED"
        failed = c.get(f"/api/operations/{op}").json()
        assert failed["error"] == "UnsupportedAvailabilityZoneException", failed
        assert c.post(f"/api/operations/{op}/retry").status_code == 202
    return {**sandbox.wait_operation(op, timeout=180), "failedAttempt": failed}


def test_one_request_provisions_control_plane_dependencies_hyperpod_and_storage(sandbox, provisioned):
    done, op = provisioned, provisioned["id"]
    assert done["status"] == "SUCCEEDED", done
    phases = {p["name"]: p for p in done["phases"]}
    assert all(p["status"] == "SUCCEEDED" for p in phases.values()), phases
    assert list(phases)[-4:] == ["StorageAccess", "ApplyVolume", "WaitBound", "AwaitAddons"]
    # the HyperPod pieces that do not need EKS were made while EKS was being created
    assert phases["ExecutionRole"]["endedAt"] < phases["WaitActive"]["endedAt"]
    # in the order AWS needs: HyperPod's dependencies (health agent, device plugins) before its CreateCluster,
    # storage once they (its CSI driver) were in, and the Deployment add-ons awaited once the nodes joined
    assert phases["CreateHyperPod"]["startedAt"] > phases["Manifests"]["endedAt"]
    assert phases["StorageAccess"]["startedAt"] > phases["Manifests"]["endedAt"]
    assert phases["AwaitAddons"]["startedAt"] > max(phases["WaitInService"]["endedAt"], phases["WaitBound"]["endedAt"])
    # with no nodes yet, coredns and the dependency add-ons waited for them, and that was no failure
    assert "coredns" in phases["CoreAddons"]["message"] and "waits for nodes" in phases["CoreAddons"]["message"]
    assert "cert-manager" in phases["Addons"]["message"] and "waits for nodes" in phases["Addons"]["message"]
    assert "coredns" in phases["AwaitAddons"]["message"] and "ACTIVE" in phases["AwaitAddons"]["message"]
    eks = sandbox.aws("eks")
    for addon in eks.list_addons(clusterName="e2e-prov")["addons"]:
        described = eks.describe_addon(clusterName="e2e-prov", addonName=addon)["addon"]
        assert (described["status"], described["health"]["issues"]) == ("ACTIVE", []), described
    # the retry resumed the failed child where it stopped: what had succeeded was not run again
    before = {p["name"]: p for p in done["failedAttempt"]["phases"]}
    assert before["CreateCluster"]["status"] == "FAILED"
    # (Network and ClusterRole come before CreateCluster in its child; HyperPod's pieces made beside it, such as
    # its execution role, had ended or not when CreateCluster failed, as the two children's timing fell)
    succeeded = {name for name, p in before.items() if p["status"] == "SUCCEEDED"}
    assert {"Network", "ClusterRole"} <= succeeded, before
    for kept in succeeded:
        assert phases[kept]["endedAt"] == before[kept]["endedAt"], kept
    assert phases["CreateCluster"]["startedAt"] > done["failedAttempt"]["updatedAt"]
    assert _executions(sandbox, op) == {
        op: "FAILED",
        f"{op}-cp-1": "FAILED",
        f"{op}-r1": "SUCCEEDED",
        f"{op}-cp-2": "SUCCEEDED",
        f"{op}-deps-2": "SUCCEEDED",
        f"{op}-hp-2": "SUCCEEDED",
        f"{op}-st-2": "SUCCEEDED",
    }
    cluster = sandbox.aws("sagemaker").describe_cluster(ClusterName="e2e-prov")
    assert cluster["ClusterStatus"] == "InService" and cluster["NodeRecovery"] == "Automatic"
    # HyperPod's nodes sit in the security group EKS's control plane carries, so they joined as Nodes.
    eks_groups = eks.describe_cluster(name="e2e-prov")["cluster"]["resourcesVpcConfig"]["securityGroupIds"]
    assert cluster["VpcConfig"]["SecurityGroupIds"] == eks_groups
    nodes = k8s.CoreV1Api(sandbox.kube("e2e-prov")).list_node().items
    assert nodes and all(n.metadata.name.startswith("hyperpod-i-") for n in nodes)

    claim = k8s.CoreV1Api(sandbox.kube("e2e-prov")).read_namespaced_persistent_volume_claim("shared", "default")
    assert claim.status.phase == "Bound"
    with sandbox.client("viewer") as c:
        (row,) = c.get("/api/clusters/e2e-prov/storage").json()["items"]
    assert (row["storageName"], row["status"]) == ("shared", "Bound") and row["source"].endswith("/datasets/")


def test_one_phase_reruns_alone_as_its_own_operation_with_the_recorded_settings(sandbox, provisioned):
    assert provisioned["status"] == "SUCCEEDED"
    with sandbox.client() as c:
        unknown = c.post("/api/clusters/e2e-prov/phases/network")
        response = c.post("/api/clusters/e2e-prov/phases/dependencies")
    assert unknown.status_code == 422 and "'dependencies'" in unknown.json()["message"]
    assert response.status_code == 202, response.text
    operation = response.json()["operation"]
    assert operation["kind"] == "reconcile-dependencies" and operation["id"] != provisioned["id"]
    assert operation["request"] == {"name": "e2e-prov", "includeOptional": False}
    done = sandbox.wait_operation(operation["id"])
    assert done["status"] == "SUCCEEDED", done
    assert [p["name"] for p in done["phases"]] == ["Addons", "Manifests"]
    assert _executions(sandbox, operation["id"]) == {operation["id"]: "SUCCEEDED"}
