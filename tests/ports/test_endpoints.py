"""The endpoints' contract (KubeEndpoints): the in-memory fake (tests/fakes/endpoints.py) and adapters.k8s.endpoints
on the sandbox's emulated EKS API server answer each case alike for container endpoints (a Deployment and its
Service, labelled as Launchpod labels them): none deployed, each read back by name with its Service in name order,
its replicas set by a scale, and an endpoint with no Service yet refused a chat saying so."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from launchpod.adapters.k8s import apply, endpoints
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference import manifests
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.runtime.wiring import KubeEndpoints

from tests.fakes.endpoints import Endpoints
from tests.ports.kube_support import emulated_cluster

CLUSTER = "c1"
# The port; how an endpoint is deployed (its name, whether it has a Service yet).
Side = tuple[KubeEndpoints, Callable[[str, bool], None]]


def _objects(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A container endpoint's Deployment and Service, as manifests.container names and labels them."""
    labels = manifests.labels(name, "container")
    selector = {manifests.ENDPOINT_LABEL: name, manifests.ROLE_LABEL: "worker"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": selector},
                "spec": {"containers": [{"name": "server", "image": "vllm/vllm-openai:v0.8.5"}]},
            },
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"selector": selector, "ports": [{"port": 8000, "targetPort": 8000}]},
    }
    return deployment, service


@pytest.fixture(params=["fake", "emulator"])
def side(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Side]:
    if request.param == "fake":
        fake = Endpoints([])

        def deploy_fake(name: str, served: bool) -> None:
            deployment, service = _objects(name)
            fake.found.append(RealEndpoint(kind="container", primary=deployment, service=service if served else None))

        yield fake, deploy_fake
        return

    def deploy(endpoint: str, served: bool) -> None:
        deployment, service = _objects(endpoint)
        apply.apply(CLUSTER, deployment)
        if served:
            apply.apply(CLUSTER, service)

    with emulated_cluster(request, monkeypatch, "e-"):
        yield endpoints, deploy


def test_a_cluster_with_no_endpoint_lists_none(side: Side) -> None:
    port, _ = side
    assert port.endpoints(CLUSTER) == []
    assert port.endpoint(CLUSTER, "chat") is None


def test_endpoints_list_in_name_order_each_with_its_kind_namespace_and_service(side: Side) -> None:
    port, deploy = side
    deploy("zeta", True)
    deploy("alpha", True)
    found = port.endpoints(CLUSTER, with_pods=False)
    assert [(e.name, e.kind, e.namespace, e.port) for e in found] == [
        ("alpha", "container", "default", 8000),
        ("zeta", "container", "default", 8000),
    ]
    assert [e.name for e in port.endpoints(CLUSTER, name="zeta")] == ["zeta"]
    one = port.endpoint(CLUSTER, "alpha")
    assert one is not None and one.service is not None and one.service["metadata"]["name"] == "alpha"


def test_a_scale_sets_the_replicas_read_back(side: Side) -> None:
    port, deploy = side
    deploy("chat", True)
    real = port.endpoint(CLUSTER, "chat")
    assert real is not None and real.desired == 1
    port.scale(CLUSTER, real, 3)
    again = port.endpoint(CLUSTER, "chat")
    assert again is not None and again.desired == 3


def test_an_endpoint_without_its_service_yet_is_refused_a_chat_saying_so(side: Side) -> None:
    port, deploy = side
    deploy("chat", False)
    real = port.endpoint(CLUSTER, "chat")
    assert real is not None and real.service is None
    with pytest.raises(PermanentError, match="Endpoint chat has no Service to call yet"):
        port.chat(CLUSTER, real, {"messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(PermanentError, match="Endpoint chat has no Service to call yet"):
        port.models(CLUSTER, real)
