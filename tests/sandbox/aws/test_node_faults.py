"""Node faults: the health agent's labels and taints, HyperPod's node-health events in pairs, and
reboots and replacements that fix the fault, or do not, as it dictates."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.sagemaker import node_faults
from tests.sandbox.aws.hyperpod_support import cluster_nodes, fast_forward, instance_group, ready_cluster
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")


@pytest.fixture
def events(monkeypatch) -> list[dict[str, Any]]:
    from sandbox.aws import eventbridge

    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(
        eventbridge, "put_event", lambda account, region, source, kind, detail, resources: sent.append(detail)
    )
    yield sent
    node_faults.clear()


def _kube_node(node_id: str) -> dict[str, Any]:
    from moto.sagemaker.models import sagemaker_backends

    backend = sagemaker_backends["123456789012"]["us-east-1"]
    return next(n for n in hyperpod.desired_nodes(backend, "launchpod-eks") if n["metadata"]["name"].endswith(node_id))


def _status(sm: Any, node_id: str) -> str | None:
    return next((n["InstanceStatus"]["Status"] for n in cluster_nodes(sm) if n["InstanceId"] == node_id), None)


@pytest.fixture
def node(sm, eks_arn) -> str:
    ready_cluster(sm, eks_arn, instance_group(count=2), NodeRecovery="None")
    return sorted(n["InstanceId"] for n in cluster_nodes(sm))[0]


def test_an_efa_fault_labels_and_taints_the_node_and_a_reboot_clears_it(sm, node, events):
    node_faults.inject("hp", node, "efa")
    kube = _kube_node(node)
    labels = kube["metadata"]["labels"]
    assert labels[hyperpod.HEALTH_LABEL] == "UnschedulablePendingReboot"
    assert labels[node_faults.FAULT_TYPE_LABEL] == "EfaHealth"
    assert {"key": hyperpod.HEALTH_LABEL, "value": "UnschedulablePendingReboot", "effect": "NoSchedule"} in kube[
        "spec"
    ]["taints"]
    # the pair AWS sends, with no repair by HyperPod (node recovery is off)
    assert [e["HealthSummary"]["HealthStatus"] for e in events] == ["Unhealthy", "Unhealthy"]
    assert events[0]["HealthSummary"]["RepairAction"] == "None" and events[0]["InstanceId"] == node
    assert "fault type EfaHealth" in events[0]["HealthSummary"]["HealthStatusReason"]

    sm.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[node])
    fast_forward()
    wait_until(lambda: _status(sm, node) == "Running" and len(events) == 3)
    assert events[-1]["HealthSummary"]["HealthStatus"] == "Healthy"
    assert _kube_node(node)["metadata"]["labels"][hyperpod.HEALTH_LABEL] == "Schedulable"


def test_a_gpu_fault_survives_a_reboot_and_goes_with_the_replaced_hardware(sm, node, events):
    node_faults.inject("hp", node, "gpu")
    sm.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[node])
    fast_forward()
    wait_until(lambda: _status(sm, node) == "Running" and len(events) == 4)
    assert all(e["HealthSummary"]["HealthStatus"] == "Unhealthy" for e in events)
    assert _kube_node(node)["metadata"]["labels"][hyperpod.HEALTH_LABEL] == "UnschedulablePendingReplacement"

    before = {n["InstanceId"] for n in cluster_nodes(sm)}
    sm.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[node])
    wait_until(lambda: {n["InstanceStatus"]["Status"] for n in cluster_nodes(sm)} == {"Running"})
    [fresh] = {n["InstanceId"] for n in cluster_nodes(sm)} - before
    assert node not in {n["InstanceId"] for n in cluster_nodes(sm)}
    assert node_faults.describe()["active"] == {}
    assert _kube_node(fresh)["metadata"]["labels"][hyperpod.HEALTH_LABEL] == "Schedulable"


def test_a_fault_nothing_fixes_dooms_the_replacement(sm, node, events):
    node_faults.inject("hp", node, "gpu", "nothing")
    sm.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[node])
    fast_forward()
    failed = wait_until(lambda: [n for n in cluster_nodes(sm) if n["InstanceStatus"]["Status"] == "Failure"])
    assert "does not retry a failed replacement" in failed[0]["InstanceStatus"]["Message"]


def test_faults_are_injected_only_into_running_nodes_of_known_clusters(sm, node, events):
    with pytest.raises(ValueError, match="no node"):
        node_faults.inject("hp", "i-0000000000000dead", "gpu")
    with pytest.raises(ValueError, match="kind is one of"):
        node_faults.inject("hp", node, "disk")
    with pytest.raises(ValueError, match="no HyperPod cluster"):
        node_faults.inject("nope", node, "gpu")


def test_on_demand_deep_health_checks_fail_the_faulty_node_only(sm, node, events):
    other = next(n["InstanceId"] for n in cluster_nodes(sm) if n["InstanceId"] != node)
    node_faults.inject("hp", node, "gpu")
    config = {"InstanceGroupName": "workers", "DeepHealthChecks": ["InstanceStress"]}
    sm.start_cluster_health_check(ClusterName="hp", DeepHealthCheckConfigurations=[config])
    assert {n["InstanceStatus"]["Status"] for n in cluster_nodes(sm)} == {"DeepHealthCheckInProgress"}
    assert _kube_node(other)["metadata"]["labels"][hyperpod.DEEP_HEALTH_LABEL] == "InProgress"
    fast_forward()
    wait_until(lambda: _status(sm, node) == "Failure" and _status(sm, other) == "Running")
    failed = sm.describe_cluster_node(ClusterName="hp", NodeId=node)["NodeDetails"]["InstanceStatus"]["Message"]
    assert failed.startswith(f"Deep health check InstanceStress failed on instance {node}: NvidiaGPUUnhealthy")
    assert _kube_node(other)["metadata"]["labels"][hyperpod.DEEP_HEALTH_LABEL] == "Passed"
    with pytest.raises(ClientError, match="not in instance group"):
        config = {
            "InstanceGroupName": "workers",
            "InstanceIds": ["i-0000000000000dead"],
            "DeepHealthChecks": ["InstanceStress"],
        }
        sm.start_cluster_health_check(ClusterName="hp", DeepHealthCheckConfigurations=[config])


def test_without_the_health_agent_a_fault_is_unseen_until_the_agent_runs_on_the_node(
    sm, node, events, without_health_agent
):
    from sandbox.aws.sagemaker import node_agents

    answer = node_faults.inject("hp", node, "gpu")
    fast_forward()
    assert answer["detected"] is False and "No health-monitoring agent runs on" in answer["why"]
    assert events == []  # no node-health event: nothing reported it
    labels = _kube_node(node)["metadata"]["labels"]
    assert labels[hyperpod.HEALTH_LABEL] == "Schedulable" and node_faults.FAULT_TYPE_LABEL not in labels

    node_agents.report("launchpod-eks", {f"{hyperpod.NODE_PREFIX}{node}"})  # the agent's Pod is Ready there
    sm.describe_cluster(ClusterName="hp")  # HyperPod's state advances when it is read
    wait_until(lambda: len(events) == 2)
    assert _kube_node(node)["metadata"]["labels"][hyperpod.HEALTH_LABEL] == "UnschedulablePendingReplacement"


def test_an_unresponsive_node_is_not_ready_even_without_the_agent(sm, node, events, without_health_agent):
    node_faults.inject("hp", node, "unresponsive")
    kube = _kube_node(node)
    ready = next(c for c in kube["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "Unknown" and events == []
    assert hyperpod.HEALTH_LABEL not in [t["key"] for t in kube["spec"].get("taints", [])]


def test_deep_health_checks_cannot_run_without_the_agent(sm, node, events, without_health_agent):
    config = {"InstanceGroupName": "workers", "DeepHealthChecks": ["InstanceConnectivity"]}
    sm.start_cluster_health_check(ClusterName="hp", DeepHealthCheckConfigurations=[config])
    fast_forward()
    wait_until(lambda: _status(sm, node) == "Failure")
    failed = sm.describe_cluster_node(ClusterName="hp", NodeId=node)["NodeDetails"]["InstanceStatus"]["Message"]
    assert "the HyperPod health-monitoring agent is not running on it" in failed
