"""HyperPod-managed Karpenter end to end: enable it for a GPU group at zero, a pending GPU pod brings a
node from zero, the group returns to zero when the node is idle, then disable it."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body
from tests.sandbox.workloads import gpu_deployment

pytestmark = pytest.mark.e2e
NAME = "e2e-karpenter"
BODY = cluster_body(
    NAME, {"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1}, nodeProvisioningMode="Continuous"
)


def _until(check, timeout: float = 90.0):
    return wait_until(check, timeout, reason=f"{check.__name__} did not hold")


def _gpu_group(sandbox) -> dict:
    described = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    return next(g for g in described["InstanceGroups"] if g["InstanceGroupName"] == "gpu")


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    with sandbox.client() as c:
        add = {"group": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 0}
        op = c.post(f"/api/clusters/{NAME}/instance-groups", json=add).json()["operation"]["id"]
        assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"
    return NAME


def test_karpenter_brings_a_gpu_node_from_zero_and_returns_to_zero(sandbox, cluster):
    with sandbox.client() as c:
        unknown = c.put(f"/api/clusters/{NAME}/autoscaling", json={"enabled": True, "instanceGroups": ["nope"]})
        assert unknown.status_code == 422 and "HyperPod instance groups only" in unknown.json()["message"]
        system = c.put(f"/api/clusters/{NAME}/autoscaling", json={"enabled": True, "instanceGroups": ["system"]})
        assert system.status_code == 422 and "system (1 nodes) would be terminated" in system.json()["message"]
        every = {"enabled": True, "instanceGroups": ["gpu", "system"], "confirmScaleToZero": ["system"]}
        alone = c.put(f"/api/clusters/{NAME}/autoscaling", json=every)
        assert alone.status_code == 422 and "no node for the system pods" in alone.json()["message"]
        body = {"enabled": True, "instanceGroups": ["gpu"], "consolidateAfterSeconds": 60}
        op = c.put(f"/api/clusters/{NAME}/autoscaling", json=body).json()["operation"]["id"]
        done = sandbox.wait_operation(op)
        assert done["status"] == "SUCCEEDED", done
        assert c.put(f"/api/clusters/{NAME}/autoscaling", json=body).json()["status"] == "NOOP"
        groups = {g["instanceGroup"]: g for g in c.get(f"/api/clusters/{NAME}/instance-groups").json()["items"]}
        by_hand = c.patch(f"/api/clusters/{NAME}/instance-groups/gpu", json={"instanceCount": 2})
        assert by_hand.status_code == 409 and "Karpenter manages instance group gpu" in by_hand.json()["message"]
        gone = c.delete(f"/api/clusters/{NAME}/instance-groups/gpu", params={"confirm": "gpu"})
        assert gone.status_code == 409 and "take it out of autoscaling first" in gone.json()["message"]
    assert groups["gpu"]["karpenterManaged"] and not groups["system"]["karpenterManaged"]
    described = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    assert described["AutoScaling"]["Status"] == "InService" and described["NodeProvisioningMode"] == "Continuous"
    assert described["NodeRecovery"] == "Automatic"
    assert next(g for g in described["InstanceGroups"] if g["InstanceGroupName"] == "system")["TargetCount"] == 1
    role = described["ClusterRole"].rsplit("/", 1)[-1]
    trust = sandbox.aws("iam").get_role(RoleName=role)["Role"]["AssumeRolePolicyDocument"]
    assert trust["Statement"][0]["Principal"]["Service"] == "hyperpod.sagemaker.amazonaws.com"

    api = sandbox.kube(NAME)
    custom = k8s.CustomObjectsApi(api)
    [node_class] = custom.list_cluster_custom_object("karpenter.sagemaker.amazonaws.com", "v1", "hyperpodnodeclasses")[
        "items"
    ]
    assert node_class["spec"]["instanceGroups"] == ["gpu"]
    [pool] = custom.list_cluster_custom_object("karpenter.sh", "v1", "nodepools")["items"]
    assert pool["spec"]["template"]["spec"]["nodeClassRef"]["name"] == node_class["metadata"]["name"]
    assert pool["spec"]["disruption"]["consolidateAfter"] == "60s"
    apps, core = k8s.AppsV1Api(api), k8s.CoreV1Api(api)
    apps.create_namespaced_deployment("default", gpu_deployment())

    def running_pod():
        pods = core.list_namespaced_pod("default", label_selector="app=gpu-app").items
        return next((p for p in pods if p.status.phase == "Running" and p.spec.node_name), None)

    pod = _until(running_pod)
    assert pod is not None, "the pending GPU pod never ran"
    node = core.read_node(pod.spec.node_name)
    assert node.metadata.labels["sagemaker.amazonaws.com/instance-group-name"] == "gpu"
    assert _gpu_group(sandbox)["TargetCount"] == 1

    apps.delete_namespaced_deployment("gpu-app", "default")
    assert _until(lambda: _gpu_group(sandbox)["TargetCount"] == 0 and _gpu_group(sandbox)["CurrentCount"] == 0)
    gpu_nodes = lambda: core.list_node(label_selector="sagemaker.amazonaws.com/instance-group-name=gpu").items  # noqa: E731
    assert _until(lambda: not gpu_nodes())

    with sandbox.client() as c:
        op = c.put(f"/api/clusters/{NAME}/autoscaling", json={"enabled": False}).json()["operation"]["id"]
        done = sandbox.wait_operation(op)
        assert done["status"] == "SUCCEEDED", done
        groups = {g["instanceGroup"]: g for g in c.get(f"/api/clusters/{NAME}/instance-groups").json()["items"]}
    assert "AutoScaling" not in sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    assert not groups["gpu"]["karpenterManaged"]
    assert custom.list_cluster_custom_object("karpenter.sh", "v1", "nodepools")["items"] == []
    classes = custom.list_cluster_custom_object("karpenter.sagemaker.amazonaws.com", "v1", "hyperpodnodeclasses")
    assert classes["items"] == []
