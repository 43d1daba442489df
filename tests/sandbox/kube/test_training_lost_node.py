"""A training pod whose node is gone (HyperPod replaced or deleted it) does not run on: Kubernetes' pod
garbage collector deletes it and the training operator restarts the whole job, whose pods land on the
nodes that are left; without a restart left in the budget the job fails, naming the node."""

from __future__ import annotations

import copy

import pytest

from sandbox.controllers import training
from sandbox.kube import KubeFleet
from tests.sandbox.kube.support import IN_REGION, ready_node

CLUSTER = "lost"


def _node(name: str) -> dict:
    return ready_node(name, IN_REGION, {"cpu": "8", "memory": "32Gi"})


def _job(retries: int) -> dict:
    template = {"spec": {"containers": [{"name": "train", "image": "trainer:1"}]}}
    return {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "llm", "namespace": "default", "uid": f"uid-{retries}"},
        "spec": {
            "nprocPerNode": "1",
            "runPolicy": {"jobMaxRetryCount": retries},
            "replicaSpecs": [{"name": "pod", "replicas": 1, "template": template}],
        },
    }


@pytest.fixture
def fleet():
    fleet = KubeFleet()
    fleet.start_for(CLUSTER)
    for name in ("hyperpod-i-1", "hyperpod-i-2"):
        fleet.call(CLUSTER, lambda e, n=name: e.put_object("v1/nodes", _node(n)))
    yield fleet
    fleet.stop_all()


def _reconcile(fleet, times: int = 1) -> None:
    for _ in range(times):
        fleet.call(CLUSTER, training._reconciler(CLUSTER, True))


def _pods(fleet) -> list[dict]:
    return fleet.call(CLUSTER, lambda e: e.list_objects("v1/pods", "default"))


def _running(fleet, retries: int) -> str:
    fleet.call(CLUSTER, training._reconciler(CLUSTER, True))  # declares the CRD
    fleet.call(CLUSTER, lambda e: e.put_object(training.PYTORCH, copy.deepcopy(_job(retries))))
    _reconcile(fleet, 3)
    [pod] = _pods(fleet)
    assert pod["status"]["phase"] == "Running", pod["status"]
    return str(pod["spec"]["nodeName"])


def _job_status(fleet) -> dict:
    return fleet.call(CLUSTER, lambda e: e.get_object(training.PYTORCH, "default", "llm"))["status"]


def _gone(fleet, node: str) -> None:
    fleet.call(CLUSTER, lambda e: e.delete_object("v1/nodes", None, node))


def test_a_job_whose_node_is_gone_restarts_on_the_nodes_left(fleet):
    first = _running(fleet, retries=1)
    _gone(fleet, first)
    _reconcile(fleet)
    status = _job_status(fleet)
    assert status["restartStatus"]["fullJobRestartCount"] == 1
    assert f"node failure ({first} is gone)" in status["conditions"][-1]["message"]
    _reconcile(fleet, 2)
    [pod] = _pods(fleet)
    assert pod["status"]["phase"] == "Running" and pod["spec"]["nodeName"] != first


def test_without_a_restart_left_the_job_fails_naming_the_node(fleet):
    first = _running(fleet, retries=0)
    _gone(fleet, first)
    _reconcile(fleet)
    last = _job_status(fleet)["conditions"][-1]
    assert last["type"] == "Failed" and last["reason"] == "JobMaxRetryCountExceeded"
    assert f"{first} is gone" in last["message"]
    assert _pods(fleet) == []  # the garbage collector took the pod of the lost node


def _whole_node_job(**spec) -> dict:
    """Two pods that each take a whole node's GPUs, so a lost node's pod has nowhere else to go."""
    job = _job(retries=3)
    job["metadata"]["uid"] = "uid-whole"
    container = job["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
    container["resources"] = {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}
    job["spec"]["replicaSpecs"][0]["replicas"] = 2
    job["spec"].update(spec)
    return job


def test_an_elastic_job_whose_node_is_gone_continues_with_fewer_nodes_after_its_faulty_scale_down_timeout(fleet):
    """Elastic training (AWS's elastic training page): the lost pod is recreated and waits for a node; when none
    comes within faultyScaleDownTimeoutInSeconds the job scales down to a world size its policy allows."""
    for name in ("hyperpod-i-1", "hyperpod-i-2"):
        node = _node(name)
        node["status"]["allocatable"]["nvidia.com/gpu"] = "8"
        fleet.call(CLUSTER, lambda e, n=node: e.put_object("v1/nodes", n))
    fleet.call(CLUSTER, training._reconciler(CLUSTER, True))
    policy = {"minReplicas": 1, "maxReplicas": 2, "faultyScaleDownTimeoutInSeconds": 0}
    job = _whole_node_job(elasticPolicy=policy)
    fleet.call(CLUSTER, lambda e: e.put_object(training.PYTORCH, job))
    _reconcile(fleet, 3)
    assert sorted(p["status"]["phase"] for p in _pods(fleet)) == ["Running", "Running"]
    lost = _pods(fleet)[1]["spec"]["nodeName"]
    _gone(fleet, lost)
    _reconcile(fleet, 2)  # the pod is recreated and finds no node with 8 free GPUs
    assert [p["status"]["phase"] for p in _pods(fleet)].count("Pending") == 1
    assert _job_status(fleet)["restartStatus"]["fullJobRestartCount"] == 0  # not a full restart
    _reconcile(fleet, 3)
    status = _job_status(fleet)
    assert status["elasticScalingStatus"] == {"currentReplicas": 1}
    [pod] = _pods(fleet)
    assert pod["status"]["phase"] == "Running" and pod["spec"]["nodeName"] != lost
    assert status["conditions"][-1]["type"] == "Running"
