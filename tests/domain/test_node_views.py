"""What the Nodes tab shows of a node: the GPUs its pods hold, counted as kube-scheduler counts them."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC, datetime

from launchpod.domain.nodes import views
from launchpod.domain.nodes.hyperpod_event import ClusterEvent, ClusterEventDetails
from launchpod.domain.nodes.hyperpod_node import HyperPodNode

SUMMARY = HyperPodNode("i-0aaaaaaaaaaaaaaa1", "gpu", "ml.p5.48xlarge", None)
NODE = {"metadata": {"name": "hyperpod-i-0aaaaaaaaaaaaaaa1"}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}}


def _pod(name: str, resources: dict, phase: str = "Running") -> dict:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"nodeName": NODE["metadata"]["name"], "containers": [{"name": "main", "resources": resources}]},
        "status": {"phase": phase},
    }


def test_gpus_held_count_requests_limits_alone_and_not_finished_pods():
    pods = [
        _pod("requests", {"requests": {"nvidia.com/gpu": "2"}, "limits": {"nvidia.com/gpu": "2"}}),
        _pod("limit-only", {"limits": {"nvidia.com/gpu": "4"}}),  # requests default to the limit
        _pod("done", {"limits": {"nvidia.com/gpu": "1"}}, phase="Succeeded"),
        _pod("cpu", {"requests": {"cpu": "1"}}),
    ]
    view = views.node_view(SUMMARY, NODE, pods, "OnDemand")
    assert (view["gpusAllocated"], view["gpusAllocatable"]) == (6, 8)
    assert {p["name"]: p["gpus"] for p in view["pods"]} == {"cpu": 0, "done": 1, "limit-only": 4, "requests": 2}


def test_a_node_in_deep_health_checks_says_so_with_the_agents_labels():
    summary = replace(SUMMARY, status="DeepHealthCheckInProgress", message="InstanceStress")
    labels = {
        "sagemaker.amazonaws.com/node-health-status": "Unschedulable",
        "sagemaker.amazonaws.com/deep-health-check-status": "InProgress",
        "sagemaker.amazonaws.com/instance-group-name": "gpu",
    }
    node = {**NODE, "metadata": {**NODE["metadata"], "labels": labels}, "spec": {"unschedulable": True}}
    view = views.node_view(summary, node, [], "OnDemand")
    assert (view["instanceStatus"], view["instanceMessage"]) == ("DeepHealthCheckInProgress", "InstanceStress")
    assert (view["healthStatus"], view["deepHealthCheckStatus"], view["unschedulable"]) == (
        "Unschedulable",
        "InProgress",
        True,
    )
    assert "sagemaker.amazonaws.com/instance-group-name" not in view["healthLabels"]


def test_an_event_shows_describe_cluster_events_failure_message_and_its_metadata_whole():
    at = datetime(2026, 12, 1, tzinfo=UTC)
    summary = ClusterEvent(
        "e-1", "hp", at, "Error", "Instance", "gpu", "i-0aaaaaaaaaaaaaaa1", "Instance creation failed"
    )
    metadata = {"Cluster": {"ClusterName": "hp"}, "Instance": {"FailureMessage": "No ml.p5.48xlarge capacity"}}
    detail = ClusterEventDetails(
        *(getattr(summary, f.name) for f in fields(ClusterEvent)),
        metadata=metadata,
        failure_messages=("No ml.p5.48xlarge capacity",),
    )
    view = views.event_view(summary, detail)
    assert (view["failureMessage"], view["metadata"]) == ("No ml.p5.48xlarge capacity", metadata)
    assert (view["instanceGroup"], view["nodeId"], view["level"]) == ("gpu", "i-0aaaaaaaaaaaaaaa1", "Error")
    assert views.event_view(summary, None)["failureMessage"] is None
