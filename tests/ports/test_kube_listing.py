"""The Kubernetes lists' contract: the in-memory fake (tests/fakes/kube_listing.py) and adapters.k8s.listing on
the sandbox's emulated EKS API server answer each case alike: every namespace's objects of a kind, a kind
with none, a kind the adapter does not list, and the log of a pod that has none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from launchpod.adapters.k8s import listing

from tests.fakes.kube_listing import KubeLists
from tests.ports.kube_support import Seed, core_seeder, emulated_cluster

CLUSTER = "c1"


@pytest.fixture(params=["fake", "emulator"])
def cluster(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Seed]]:
    """The port, and how an object comes to exist on its cluster (a node joins, a controller makes a pod)."""
    if request.param == "fake":
        fake = KubeLists()
        yield fake, lambda kind, obj: fake.objects.setdefault(kind, []).append({"kind": kind, **obj})
        return
    with emulated_cluster(request, monkeypatch, "l-") as api:
        yield listing, core_seeder(api)


def _names(port: Any, kind: str) -> set[tuple[str | None, str]]:
    return {(o["metadata"].get("namespace"), o["metadata"]["name"]) for o in port.items(CLUSTER, kind)}


def test_a_kind_lists_its_objects_of_every_namespace(cluster: tuple[Any, Seed]) -> None:
    port, seed = cluster
    seed(
        "Node",
        {
            "metadata": {
                "name": "hyperpod-i-0abc",
                "labels": {"sagemaker.amazonaws.com/node-health-status": "Schedulable"},
            }
        },
    )
    seed(
        "Pod",
        {
            "metadata": {"name": "train-0", "namespace": "default"},
            "spec": {"containers": [{"name": "pytorch", "image": "pytorch"}]},
        },
    )
    seed("Service", {"metadata": {"name": "chat", "namespace": "kube-system"}, "spec": {"ports": [{"port": 80}]}})
    seed(
        "Event",
        {
            "metadata": {"name": "train-0.1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "train-0", "namespace": "default"},
            "reason": "FailedScheduling",
            "message": "0/1 nodes are available",
        },
    )
    assert _names(port, "Node") == {(None, "hyperpod-i-0abc")}
    (node,) = port.items(CLUSTER, "Node")
    assert node["metadata"]["labels"]["sagemaker.amazonaws.com/node-health-status"] == "Schedulable"
    assert ("default", "train-0") in _names(port, "Pod")
    assert ("kube-system", "chat") in _names(port, "Service")
    events = [e for e in port.items(CLUSTER, "Event") if e["metadata"]["name"] == "train-0.1"]
    assert [(e["reason"], e["involvedObject"]["name"]) for e in events] == [("FailedScheduling", "train-0")]


def test_a_kind_with_no_objects_lists_empty(cluster: tuple[Any, Seed]) -> None:
    port, _ = cluster
    assert port.items(CLUSTER, "Ingress") == []
    assert port.items(CLUSTER, "Node") == []


def test_a_kind_the_adapter_does_not_list_is_a_programming_error(cluster: tuple[Any, Seed]) -> None:
    with pytest.raises(KeyError):
        cluster[0].items(CLUSTER, "ConfigMap")


def test_the_log_of_a_pod_that_has_none_reads_empty(cluster: tuple[Any, Seed]) -> None:
    port, _ = cluster
    assert port.pod_log(CLUSTER, "default", "nobody", "main") == ""
