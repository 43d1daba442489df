"""Pods land only where kube-scheduler would put them; otherwise they stay Pending, Unschedulable, with
kube-scheduler's FailedScheduling message, and their Deployment is not ready."""

from __future__ import annotations

import pytest

from sandbox.controllers.scheduling import schedule
from sandbox.controllers.workloads import _reconcile
from tests.instance_facts import placement
from tests.sandbox.kube.support import one_cluster, put
from tests.sandbox.workloads import deployment

CLUSTER = "sched"


def _node(name, *, ready="True", labels=None, taints=None, unschedulable=False, **allocatable):
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"node.kubernetes.io/instance-type": "ml.m5.2xlarge", **(labels or {})}},
        "spec": {"taints": taints or [], **({"unschedulable": True} if unschedulable else {})},
        "status": {
            "allocatable": {"cpu": "7910m", "memory": "30Gi", **allocatable},
            "conditions": [{"type": "Ready", "status": ready}],
        },
    }
    return node


def _spec(**requests):
    return {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": requests}}]}


def test_a_pod_goes_to_a_ready_node_with_room():
    assert schedule(_spec(cpu="1", memory="1Gi"), [_node("a")], []) == ("a", "")


def test_no_nodes_is_worded_as_kube_scheduler_words_it():
    assert schedule(_spec(cpu="1"), [], []) == (None, "no nodes available to schedule pods")


def test_insufficient_gpus_is_a_resolvable_reason():
    node, message = schedule(_spec(**{"nvidia.com/gpu": "8"}), [_node("a"), _node("b", **{"nvidia.com/gpu": "4"})], [])
    assert node is None
    assert message == (
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. "
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.."
    )


def test_requests_of_pods_already_bound_use_up_the_node():
    bound = [{"spec": {**_spec(cpu="7"), "nodeName": "a"}, "status": {"phase": "Running"}}]
    assert schedule(_spec(cpu="1"), [_node("a")], bound)[0] is None
    assert schedule(_spec(cpu="900m"), [_node("a")], bound)[0] == "a"


def test_taints_affinity_cordons_and_not_ready_nodes_are_each_counted():
    nodes = [
        _node(
            "a",
            taints=[
                {"key": "sagemaker.amazonaws.com/node-health-status", "value": "Unschedulable", "effect": "NoSchedule"}
            ],
        ),
        _node("b", unschedulable=True),
        _node("c", ready="Unknown"),
        _node("d", labels={"node.kubernetes.io/instance-type": "ml.p5.48xlarge"}),
        _node("e", **{"vpc.amazonaws.com/efa": "0"}),
    ]
    spec = _spec(**{"vpc.amazonaws.com/efa": "1"})
    spec["nodeSelector"] = {"node.kubernetes.io/instance-type": "ml.m5.2xlarge"}
    node, message = schedule(spec, nodes, [])
    assert node is None
    assert message == (
        "0/5 nodes are available: 1 Insufficient vpc.amazonaws.com/efa, "
        "1 node(s) didn't match Pod's node affinity/selector, "
        "1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, "
        "1 node(s) had untolerated taint {sagemaker.amazonaws.com/node-health-status: Unschedulable}, "
        "1 node(s) were unschedulable. "
        "preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod., "
        "4 Preemption is not helpful for scheduling."
    )
    spec["tolerations"] = [{"operator": "Exists"}]
    spec["containers"][0]["resources"] = {}
    assert schedule(spec, nodes, [])[0] == "a"  # tolerates every taint, the cordon included


def test_a_limit_alone_is_the_request():
    spec = {"containers": [{"name": "c", "resources": {"limits": {"aws.amazon.com/neuron": "1"}}}]}
    assert schedule(spec, [_node("a")], [])[0] is None
    assert schedule(spec, [_node("a", **{"aws.amazon.com/neuron": "16"})], [])[0] == "a"


DEPLOYMENT = deployment("trainer", _spec(**{"nvidia.com/gpu": "8"}), replicas=2, generation=1)


def _daemonset(name: str, pod_spec: dict) -> dict:
    """A DaemonSet in kube-system whose pods (labelled app=``name``) have ``pod_spec``."""
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system", "generation": 1},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
        },
    }


@pytest.fixture
def fleet():
    with one_cluster(CLUSTER) as fleet:
        yield fleet


def test_replicas_that_do_not_fit_stay_pending_with_a_failed_scheduling_event(fleet):
    put(fleet, CLUSTER, "v1/nodes", _node("hyperpod-i-1", **{"nvidia.com/gpu": "8"}))
    put(fleet, CLUSTER, "apps/v1/deployments", DEPLOYMENT)
    fleet.call(CLUSTER, _reconcile)
    pods = sorted(
        fleet.call(CLUSTER, lambda e: e.list_objects("v1/pods", "default")), key=lambda p: p["metadata"]["name"]
    )
    assert [p["status"]["phase"] for p in pods] == ["Running", "Pending"]
    assert pods[0]["spec"]["nodeName"] == "hyperpod-i-1"
    condition = pods[1]["status"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == ("PodScheduled", "False", "Unschedulable")
    assert condition["message"].startswith("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.")
    events = fleet.call(CLUSTER, lambda e: e.list_objects("v1/events", "default"))
    assert [(e["reason"], e["involvedObject"]["name"], e["source"]["component"]) for e in events] == [
        ("FailedScheduling", pods[1]["metadata"]["name"], "default-scheduler")
    ]
    deployment = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/deployments", "default", "trainer"))
    assert deployment["status"]["readyReplicas"] == 1 and deployment["status"]["unavailableReplicas"] == 1

    put(fleet, CLUSTER, "v1/nodes", _node("hyperpod-i-2", **{"nvidia.com/gpu": "8"}))
    fleet.call(CLUSTER, _reconcile)
    deployment = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/deployments", "default", "trainer"))
    assert deployment["status"]["readyReplicas"] == 2


def test_a_daemonset_counts_only_nodes_whose_taints_it_tolerates(fleet):
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    put(fleet, CLUSTER, "v1/nodes", _node("a", taints=[gpu_taint]))
    put(fleet, CLUSTER, "v1/nodes", _node("b", taints=[{"key": "dedicated", "value": "ray", "effect": "NoSchedule"}]))
    tolerates_gpu = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    put(fleet, CLUSTER, "apps/v1/daemonsets", _daemonset("gpu-plugin", {**_spec(), "tolerations": tolerates_gpu}))
    fleet.call(CLUSTER, _reconcile)
    found = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/daemonsets", "kube-system", "gpu-plugin"))
    assert found["status"]["desiredNumberScheduled"] == 1


def test_daemon_pods_run_one_per_wanted_node_and_wait_when_the_node_is_full(fleet):
    put(fleet, CLUSTER, "v1/nodes", _node("a", cpu="1"))
    put(fleet, CLUSTER, "v1/nodes", _node("b", cpu="8"))
    put(fleet, CLUSTER, "apps/v1/daemonsets", _daemonset("agent", _spec(cpu="2")))
    fleet.call(CLUSTER, _reconcile)
    pods = fleet.call(CLUSTER, lambda e: e.list_objects("v1/pods", "kube-system"))
    placed = {p["spec"].get("nodeName"): p["status"]["phase"] for p in pods}
    assert placed == {"b": "Running", None: "Pending"}
    pending = next(p for p in pods if p["status"]["phase"] == "Pending")
    assert pending["status"]["conditions"][0]["message"].startswith(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector."
    )
    found = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/daemonsets", "kube-system", "agent"))
    assert (found["status"]["desiredNumberScheduled"], found["status"]["numberReady"]) == (2, 1)


def test_hyperpods_health_agent_runs_on_an_unhealthy_node_the_gpu_plugin_skips(fleet):
    from launchpod.domain.dependencies import objects

    health_taint = {
        "key": "sagemaker.amazonaws.com/node-health-status",
        "value": "Unschedulable",
        "effect": "NoSchedule",
    }
    labels = {"node.kubernetes.io/instance-type": "ml.p5.48xlarge", "sagemaker.amazonaws.com/compute-type": "hyperpod"}
    put(fleet, CLUSTER, "v1/nodes", _node("hyperpod-i-1", labels=labels, taints=[health_taint], unschedulable=True))
    for obj in [
        *objects.health_monitoring_agent("1.0", "us-east-1"),
        *objects.nvidia_device_plugin("v0.17.2", "us-east-1", placement()),
    ]:
        if obj["kind"] in ("Namespace", "DaemonSet"):
            put(fleet, CLUSTER, {"Namespace": "v1/namespaces", "DaemonSet": "apps/v1/daemonsets"}[obj["kind"]], obj)
    fleet.call(CLUSTER, _reconcile)
    agent = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/daemonsets", "aws-hyperpod", "health-monitoring-agent"))
    plugin = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/daemonsets", "kube-system", "nvidia-device-plugin"))
    assert (agent["status"]["desiredNumberScheduled"], agent["status"]["numberReady"]) == (1, 1)
    assert plugin["status"]["desiredNumberScheduled"] == 0


def test_two_replicas_on_partitions_share_one_mig_node_where_a_whole_gpu_is_refused():
    """A partitioned H100 node advertises 56 mig-1g.10gb and no whole GPU (sandbox.aws.sagemaker.mig): two
    one-partition replicas land on it; a pod asking for a GPU does not fit, in kube-scheduler's words."""
    mig = _node("mig", **{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "56"})
    first = {"spec": {"nodeName": "mig", **_spec(**{"nvidia.com/mig-1g.10gb": "1"})}}
    assert schedule(_spec(**{"nvidia.com/mig-1g.10gb": "1"}), [mig], [first]) == ("mig", "")
    node, message = schedule(_spec(**{"nvidia.com/gpu": "1"}), [mig], [first])
    assert node is None and "1 Insufficient nvidia.com/gpu" in message


def test_required_hostname_anti_affinity_keeps_a_pod_off_a_node_running_a_matching_pod():
    """InterPodAffinity: a multi-node endpoint's ranks never share a node, whatever room the node has."""
    spec = {
        **_spec(cpu="1"),
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "big"}}, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        },
    }
    there = {"metadata": {"labels": {"app": "big"}}, "spec": {"nodeName": "a"}, "status": {"phase": "Running"}}
    assert schedule(spec, [_node("a"), _node("b")], [there]) == ("b", "")
    node, message = schedule(spec, [_node("a")], [there])
    assert node is None and "1 node(s) didn't match pod anti-affinity rules" in message
