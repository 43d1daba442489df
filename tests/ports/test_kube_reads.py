"""KubeReads' contract: the in-memory fake (tests/fakes/kube_reads.py) and adapters.k8s.reads on the sandbox's
emulated EKS API server answer alike: the server's version as Kubernetes reports it (v1.minor.patch) and its
namespaces, the built-in ones included and a namespace created since."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from launchpod.adapters.k8s import apply, reads
from launchpod.runtime.wiring import KubeReads as Port

from tests.fakes.kube_reads import KubeReads
from tests.ports.kube_support import emulated_cluster

CLUSTER = "c1"
# The port; how a namespace is created (its name).
Side = tuple[Port, Callable[[str], None]]


@pytest.fixture(params=["fake", "emulator"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Side]:
    if request.param == "fake":
        fake = KubeReads()
        yield fake, fake.namespaces.append
        return

    def create(namespace: str) -> None:
        apply.apply(CLUSTER, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})

    with emulated_cluster(request, monkeypatch, "r-"):
        yield reads, create


def test_the_server_reports_its_version_and_the_built_in_namespaces(side: Side) -> None:
    version, namespaces = side[0].server_version_and_namespaces(CLUSTER)
    assert re.fullmatch(r"v1\.\d+\.\d+.*", version)
    assert {"default", "kube-system"} <= set(namespaces)


def test_a_namespace_created_since_is_listed(side: Side) -> None:
    port, create = side
    create("research")
    assert "research" in port.server_version_and_namespaces(CLUSTER)[1]
