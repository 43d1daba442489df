"""The drain's contract: the in-memory fake (tests/fakes/kube_drain.py) and adapters.k8s.drain on the sandbox's
emulated API server answer alike: a cordoned Node is unschedulable until uncordoned, an evicted pod is gone, a
pod a PodDisruptionBudget holds stays (False), and a pod already gone counts as evicted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from launchpod.adapters.k8s import drain, listing

from tests.fakes.kube_drain import KubeDrain
from tests.fakes.kube_listing import KubeLists
from tests.ports.kube_support import core_seeder, emulated_cluster

CLUSTER = "c1"
NODE = "hyperpod-i-0abcdef0123456789"


def _pod(name: str, app: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {"nodeName": NODE, "containers": [{"name": "c", "image": "busybox"}]},
    }


@pytest.fixture(params=["fake", "emulator"])
def port(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """(the drain port, the lister that shows its effect), with a Node, two pods and a budget holding one."""
    if request.param == "fake":
        lists = KubeLists({"Node": [{"metadata": {"name": NODE}}], "Pod": [_pod("train-0", "t"), _pod("serve-0", "s")]})
        yield KubeDrain(lists, held={"default/serve-0"}), lists
        return
    with emulated_cluster(request, monkeypatch, "d-") as api:
        seed = core_seeder(api)
        seed("Node", {"metadata": {"name": NODE}})
        for name, app in (("train-0", "t"), ("serve-0", "s")):
            seed("Pod", _pod(name, app))
        budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "serve"}}
        budget["spec"] = {"minAvailable": 1, "selector": {"matchLabels": {"app": "s"}}}
        k8s.PolicyV1Api(api).create_namespaced_pod_disruption_budget("default", budget)
        # the budget counts Running pods: the serving pod is Running
        k8s.CoreV1Api(api).patch_namespaced_pod_status("serve-0", "default", {"status": {"phase": "Running"}})
        yield drain, listing


def _unschedulable(lister: Any) -> bool:
    node = next(n for n in lister.items(CLUSTER, "Node") if n["metadata"]["name"] == NODE)
    return bool((node.get("spec") or {}).get("unschedulable"))


def test_cordon_evict_and_uncordon(port: tuple[Any, Any]) -> None:
    drainer, lister = port
    drainer.cordon(CLUSTER, NODE)
    assert _unschedulable(lister)
    assert drainer.evict(CLUSTER, "default", "train-0") is True
    assert drainer.evict(CLUSTER, "default", "serve-0") is False  # its budget allows no disruption
    assert drainer.evict(CLUSTER, "default", "train-0") is True  # already gone
    assert {p["metadata"]["name"] for p in lister.items(CLUSTER, "Pod")} == {"serve-0"}
    drainer.uncordon(CLUSTER, NODE)
    assert not _unschedulable(lister)
