"""The inference workflow's phases as use cases, with the cluster's objects and endpoints (runtime.wiring's
kube and kube_endpoints) replaced by in-memory fakes: what a delete removes and what a scale refuses."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.runtime import wiring
from launchpod.usecases.workflows import inference

from tests.fakes.kube import Kube as Objects


class FakeEndpoints:
    def __init__(self, found: list[RealEndpoint]) -> None:
        self.found = found
        self.scaled: list[tuple[str, int]] = []

    def endpoint(self, cluster: str, name: str) -> RealEndpoint | None:
        return next((e for e in self.found if e.name == name), None)

    def scale(self, cluster: str, real: RealEndpoint, replicas: int) -> None:
        self.scaled.append((real.name, replicas))


def _doc(action: str, replicas: int | None = None) -> WorkflowInput:
    request: dict[str, Any] = {
        "name": "c1",
        "action": action,
        "endpoint": "chat",
        "namespace": "default",
        "kind": "container",
        "replicas": replicas,
    }
    return WorkflowInput(operationId="op-0123456789", kind="inference", target="c1", request=request)


def _container(replicas: int = 1, scaled: bool = False) -> RealEndpoint:
    meta = {"name": "chat", "namespace": "default"}
    primary = {"kind": "Deployment", "metadata": meta, "spec": {"replicas": replicas}}
    return RealEndpoint("container", primary, scaler={"kind": "ScaledObject"} if scaled else None)


@pytest.fixture
def kube(monkeypatch) -> Objects:
    objects = Objects()
    monkeypatch.setattr(wiring, "kube", lambda: objects)
    return objects


def test_deleting_an_autoscaled_container_endpoint_removes_its_deployment_scaler_service_and_router(monkeypatch, kube):
    monkeypatch.setattr(wiring, "kube_endpoints", lambda: FakeEndpoints([_container(scaled=True)]))

    result = inference.apply_endpoint(_doc("delete"))

    deleted = [(o["kind"], o["metadata"]["name"]) for o in kube.deleted]
    assert deleted[:3] == [("Deployment", "chat"), ("ScaledObject", "chat"), ("Service", "chat")]
    assert ("Deployment", "chat-router") in deleted[3:]
    assert result.message == "Deleting Deployment default/chat."


def test_scaling_sets_the_replicas_and_an_endpoint_gone_from_the_cluster_cannot_be_scaled(monkeypatch, kube):
    endpoints = FakeEndpoints([_container(replicas=1)])
    monkeypatch.setattr(wiring, "kube_endpoints", lambda: endpoints)

    assert inference.apply_endpoint(_doc("scale", 3)).message == "chat: replicas 1 -> 3."
    assert endpoints.scaled == [("chat", 3)]

    endpoints.found.clear()
    with pytest.raises(PermanentError, match="Endpoint chat is gone from c1; nothing to scale"):
        inference.apply_endpoint(_doc("scale", 2))
