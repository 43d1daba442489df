"""What the Nodes tab shows of a node: the GPUs its pods hold, counted as kube-scheduler counts them."""

from __future__ import annotations

from launchpod.domain.nodes import views

SUMMARY = {"InstanceId": "i-0aaaaaaaaaaaaaaa1", "InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge"}
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
