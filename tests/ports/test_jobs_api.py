"""The training jobs' reads' contract: the in-memory fake (tests/fakes/jobs.py) and adapters.k8s.jobs on the
sandbox's emulated EKS API server answer each case alike: a job kind the cluster does not serve, a job's pods by
label in their namespace, a namespace's events, the nodes, and the logs of a pod, of a container it does not
have and of a pod that is gone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from launchpod.adapters.k8s import jobs
from launchpod.domain.errors import InvalidInput

from tests.fakes.jobs import JobApi
from tests.ports.kube_support import Seed, core_seeder, emulated_cluster

CLUSTER = "c1"


@pytest.fixture(params=["fake", "emulator"])
def cluster(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Seed]]:
    """The reads, and how an object (a Pod, an Event, a Node) comes to exist on the cluster."""
    if request.param == "fake":
        fake = JobApi()
        kinds = {"Pod": fake._pods, "Event": fake._events, "Node": fake._nodes}
        yield fake, lambda kind, obj: kinds[kind].append({"apiVersion": "v1", "kind": kind, **obj})
        return
    with emulated_cluster(request, monkeypatch, "j-") as api:
        yield jobs, core_seeder(api)


def _pod(name: str, namespace: str, job: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace, "labels": {"launchpod.io/job": job}},
        "spec": {"containers": [{"name": "pytorch", "image": "pytorch/pytorch"}]},
    }


def test_a_job_kind_the_cluster_does_not_serve_has_no_jobs(cluster: tuple[Any, Seed]) -> None:
    assert cluster[0].list_kind(CLUSTER, "sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", "default") == []
    assert cluster[0].list_kind(CLUSTER, "ray.io/v1", "RayJob", None) == []


def test_a_jobs_pods_are_those_labelled_for_it_in_its_namespace(cluster: tuple[Any, Seed]) -> None:
    port, seed = cluster
    seed("Pod", _pod("j1-worker-0", "default", "j1"))
    seed("Pod", _pod("j2-worker-0", "default", "j2"))
    seed("Pod", _pod("j1-worker-0", "kube-system", "j1"))
    found = port.pods(CLUSTER, "default", "launchpod.io/job=j1")
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in found] == [("default", "j1-worker-0")]


def test_events_are_those_of_the_namespace_and_nodes_those_of_the_cluster(cluster: tuple[Any, Seed]) -> None:
    port, seed = cluster
    involved = {"kind": "Pod", "name": "j1-worker-0", "namespace": "default"}
    seed("Event", {"metadata": {"name": "e1", "namespace": "default"}, "involvedObject": involved, "reason": "Pulled"})
    seed("Event", {"metadata": {"name": "e2", "namespace": "kube-system"}, "involvedObject": involved, "reason": "X"})
    seed("Node", {"metadata": {"name": "hyperpod-i-0abc"}})
    assert [e["metadata"]["name"] for e in port.events(CLUSTER, "default")] == ["e1"]
    assert [n["metadata"]["name"] for n in port.nodes(CLUSTER)] == ["hyperpod-i-0abc"]


def test_the_log_of_a_gone_pod_is_none_and_of_a_missing_container_refused(cluster: tuple[Any, Seed]) -> None:
    port, seed = cluster
    assert port.log(CLUSTER, "default", "j1-worker-0", "pytorch", 50, None) is None
    seed("Pod", _pod("j1-worker-0", "default", "j1"))
    assert port.log(CLUSTER, "default", "j1-worker-0", "pytorch", 50, None) == ""
    with pytest.raises(InvalidInput, match="Pod j1-worker-0 has no container agent"):
        port.log(CLUSTER, "default", "j1-worker-0", "agent", 50, None)
