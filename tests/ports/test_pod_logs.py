"""PodLogs' contract (a live log pump's reads, runtime.wiring.PodLogs): the in-memory fake (tests/fakes/pod_logs.py)
and adapters.k8s.log_follow on the sandbox's emulated EKS API server answer alike: a pod that does not exist (None),
a pod and its default container (kubectl's annotation, else the first), and its log stamped line by line, read
whole or since a stamp."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import client
from launchpod.adapters.k8s import log_follow
from launchpod.runtime.wiring import PodLogs as Port

from sandbox.kube import KubeFleet
from tests.fakes.pod_logs import PodLogs
from tests.ports.kube_support import cluster_name, emulated_cluster

CLUSTER = "c1"
# The port; how a pod is created (its manifest); how its container writes (pod, container, text).
Side = tuple[Port, Callable[[dict[str, Any]], None], Callable[[str, str, str], None]]


def _pod(name: str, default: str | None = None) -> dict[str, Any]:
    annotations = {"kubectl.kubernetes.io/default-container": default} if default else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations},
        "spec": {"containers": [{"name": "pytorch", "image": "pytorch"}, {"name": "sidecar", "image": "fluent-bit"}]},
    }


@pytest.fixture(params=["fake", "emulator"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Side]:
    if request.param == "fake":
        fake = PodLogs()
        yield fake, fake.create, lambda pod, container, text: fake.write("default", pod, container, text)
        return
    fleet: KubeFleet = request.getfixturevalue("fleet")
    name = cluster_name(request, "l-")

    def write(pod: str, container: str, text: str) -> None:
        fleet.call(name, lambda emu: emu.append_log("default", pod, text, container))

    with emulated_cluster(request, monkeypatch, "l-") as api:
        yield log_follow, lambda pod: client.CoreV1Api(api).create_namespaced_pod("default", pod), write


def test_a_pod_that_does_not_exist_is_none_and_so_is_its_log(side: Side) -> None:
    port = side[0]
    assert port.pod(CLUSTER, "default", "ghost") is None
    assert port.read_since(CLUSTER, "default", "ghost", "pytorch", "") is None


def test_a_pods_default_container_is_the_annotated_one_else_the_first(side: Side) -> None:
    port, create, _ = side
    create(_pod("plain"))
    create(_pod("annotated", default="sidecar"))
    plain, annotated = port.pod(CLUSTER, "default", "plain"), port.pod(CLUSTER, "default", "annotated")
    assert plain is not None and annotated is not None
    assert (port.default_container(plain), port.default_container(annotated)) == ("pytorch", "sidecar")


def test_a_log_reads_stamped_whole_or_since_a_stamp(side: Side) -> None:
    port, create, write = side
    create(_pod("trainer"))
    write("trainer", "pytorch", "step 1\nstep 2\n")
    first = port.read_since(CLUSTER, "default", "trainer", "pytorch", "")
    assert first is not None
    stamps = [line.split(" ", 1)[0] for line in first.splitlines()]
    assert [line.split(" ", 1)[1] for line in first.splitlines()] == ["step 1", "step 2"]
    assert all(s.endswith("Z") and "T" in s for s in stamps)
    write("trainer", "pytorch", "step 3\n")
    whole = port.read_since(CLUSTER, "default", "trainer", "pytorch", "")
    assert whole is not None and [line.split(" ", 1)[1] for line in whole.splitlines()] == [
        "step 1",
        "step 2",
        "step 3",
    ]
    last = whole.splitlines()[-1].split(" ", 1)[0]
    since = port.read_since(CLUSTER, "default", "trainer", "pytorch", last)
    assert since is not None and [line.split(" ", 1)[1] for line in since.splitlines()] == ["step 3"]
    assert port.read_since(CLUSTER, "default", "trainer", "sidecar", "") == ""
