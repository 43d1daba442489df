"""The kubelet's devices in the sandbox: a container asking for a GPU partition holds one MIG device, the first
free in GPU order (so small partitions share a GPU), keeps it while it runs, and frees it when its pod ends;
the node's PodResources answer names each pod's devices."""

from __future__ import annotations

from typing import Any

from sandbox.controllers import devices

NODE = "hyperpod-i-0abc"


class _Cluster:
    """The two lists the device manager reads, as an API server's store answers them."""

    def __init__(self, nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> None:
        self.objects = {"v1/nodes": nodes, "v1/pods": pods}

    def list_objects(self, resource: str, copied: bool = True) -> list[dict[str, Any]]:
        return self.objects[resource]


def _node() -> dict[str, Any]:
    labels = {"nvidia.com/gpu.count": "8", "nvidia.com/mig.strategy": "mixed"}
    allocatable = {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.5gb": "56"}
    return {"metadata": {"name": NODE, "labels": labels}, "status": {"allocatable": allocatable}}


def _pod(name: str, created: str, phase: str = "Running", count: int = 1) -> dict[str, Any]:
    limits = {"nvidia.com/mig-1g.5gb": str(count), "cpu": "1"}
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": created},
        "spec": {"nodeName": NODE, "containers": [{"name": "server", "resources": {"limits": limits}}]},
        "status": {"phase": phase},
    }


def _held() -> dict[str, list[str]]:
    return {
        p["name"]: [i for c in p["containers"] for d in c["devices"] for i in d["deviceIds"]]
        for p in devices.pod_resources("c1", NODE)
    }


def test_small_partitions_fill_one_gpu_and_an_ended_pods_device_is_handed_out_again() -> None:
    devices.devices().held.clear()
    pods = [_pod("a", "2026-01-01T00:00:01Z"), _pod("b", "2026-01-01T00:00:02Z", count=2)]
    cluster = _Cluster([_node()], pods)
    devices.allocate(cluster, "c1")
    held = _held()
    assert [len(held["a"]), len(held["b"])] == [1, 2]
    ids = held["a"] + held["b"]
    assert len(set(ids)) == 3 and len({i.split("/")[0] for i in ids}) == 1, held  # one GPU's partitions
    assert ids[0].startswith("MIG-GPU-") and ids[0].endswith("/1/0")

    pods[0]["status"]["phase"] = "Succeeded"
    pods.append(_pod("c", "2026-01-01T00:00:03Z"))
    devices.allocate(cluster, "c1")
    again = _held()
    assert sorted(again) == ["b", "c"] and again["b"] == held["b"]  # b keeps what it holds
    assert again["c"] == held["a"]  # the freed partition is the first free one
    devices.devices().held.clear()
