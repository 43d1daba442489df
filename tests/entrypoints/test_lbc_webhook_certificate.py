"""reconcile-dependencies' Manifests phase and the load balancer controller's webhook certificate: the first
reconcile stores a new one, a second keeps it (its webhooks' caBundle too), one gone stale is replaced."""

from __future__ import annotations

import base64

import pytest
from launchpod.adapters.k8s import apply as k8s
from launchpod.domain.dependencies import lbc_tls
from launchpod.runtime import wiring
from launchpod.usecases.workflows import reconcile_dependencies

from tests.entrypoints.fakes import phase_input
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube


@pytest.fixture
def store(monkeypatch) -> Kube:
    fake = Kube()
    monkeypatch.setattr(k8s, "apply", fake.apply)
    monkeypatch.setattr(k8s, "read", fake.read)
    monkeypatch.setattr(k8s, "ready", lambda found: True)
    monkeypatch.setattr(reconcile_dependencies, "lbc_vpc_id", lambda cluster: "vpc-0abc")
    monkeypatch.setattr(reconcile_dependencies, "ensure_lbc_identity", lambda cluster: None)
    monkeypatch.setattr(wiring, "instance_facts", Instances)
    return fake


def _reconcile() -> None:
    doc = phase_input("reconcile-dependencies", {"name": "c1", "includeOptional": True})
    assert reconcile_dependencies.manifests(doc).ready


def _stored(store: Kube) -> tuple[dict[str, str], set[str]]:
    secret = store.objects[k8s.path_of(lbc_tls.secret_ref())]
    bundles = {
        hook["clientConfig"]["caBundle"]
        for obj in store.objects.values()
        if obj["kind"].endswith("WebhookConfiguration")
        for hook in obj["webhooks"]
    }
    return secret["data"], bundles


def test_a_second_reconcile_keeps_the_certificate_and_the_webhooks_trust(store):
    _reconcile()
    first, bundles = _stored(store)
    assert bundles == {first["ca.crt"]}
    _reconcile()
    assert _stored(store) == (first, bundles)


def test_a_certificate_that_does_not_serve_the_webhook_is_replaced(store):
    _reconcile()
    first, _ = _stored(store)
    broken = base64.b64encode(b"not a key").decode()
    store.objects[k8s.path_of(lbc_tls.secret_ref())]["data"] = {**first, "tls.key": broken}
    _reconcile()
    again, bundles = _stored(store)
    assert again["ca.crt"] != first["ca.crt"] and again["tls.key"] != broken
    assert bundles == {again["ca.crt"]}
