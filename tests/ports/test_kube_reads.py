"""KubeReads' contract: the in-memory fake (tests/fakes/kube_reads.py) and adapters.k8s.reads on the sandbox's
emulated EKS API server answer alike: the server's version as Kubernetes reports it (v1.minor.patch) and its
namespaces, the built-in ones included and a namespace created since."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from kubernetes import client
from launchpod.adapters.k8s import apply, reads
from launchpod.runtime.wiring import KubeReads as Port

from sandbox.kube import KubeFleet, configuration, mint_token
from tests.fakes.kube_reads import KubeReads

CLUSTER = "c1"
# The port; how a namespace is created (its name).
Side = tuple[Port, Callable[[str], None]]


@pytest.fixture(scope="module")
def fleet() -> Iterator[KubeFleet]:
    fleet = KubeFleet()
    yield fleet
    fleet.stop_all()


@pytest.fixture(params=["fake", "emulator"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Side]:
    if request.param == "fake":
        fake = KubeReads()
        yield fake, fake.namespaces.append
        return
    fleet: KubeFleet = request.getfixturevalue("fleet")
    name = "r-" + request.node.name.replace("_", "-").replace("[", "-").replace("]", "")[-40:].strip("-")
    api = client.ApiClient(configuration(fleet.start_for(name), mint_token(name)))
    monkeypatch.setattr("launchpod.adapters.k8s.client.k8s_client_for", lambda cluster: api)

    def create(namespace: str) -> None:
        apply.apply(CLUSTER, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})

    yield reads, create
    api.close()
    fleet.stop(name)


def test_the_server_reports_its_version_and_the_built_in_namespaces(side: Side) -> None:
    version, namespaces = side[0].server_version_and_namespaces(CLUSTER)
    assert re.fullmatch(r"v1\.\d+\.\d+.*", version)
    assert {"default", "kube-system"} <= set(namespaces)


def test_a_namespace_created_since_is_listed(side: Side) -> None:
    port, create = side
    create("research")
    assert "research" in port.server_version_and_namespaces(CLUSTER)[1]
