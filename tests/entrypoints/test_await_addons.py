"""provision-cluster's AwaitAddons: after HyperPod's nodes joined, coredns and the dependency add-ons
are polled until EKS reports them ACTIVE; a DEGRADED add-on is waited for within a bound, then the
operation fails with EKS's health issue and what to check."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import provision
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.usecases.workflows.provision_cluster import await_addons

from tests.entrypoints.fakes import phase_input
from tests.fakes.eks import Eks

NAMES = provision.awaited_addons(include_optional=False)
NO_REPLICAS = {
    "code": "InsufficientNumberOfReplicas",
    "message": "The add-on is unhealthy because it doesn't have the desired number of replicas.",
}


def _doc(polls: int = 0) -> WorkflowInput:
    request = {"dependencies": {"name": "c1", "includeOptional": False}}
    return phase_input("provision-cluster", request, {"AwaitAddons": polls})


def _addons(**statuses: str) -> dict[str, dict[str, Any]]:
    out = {}
    for name in NAMES:
        status = statuses.get(name.replace("-", "_"), "ACTIVE")
        issues = [NO_REPLICAS] if status == "DEGRADED" else []
        out[name] = {"status": status, "addonVersion": "v1.0.0-eksbuild.1", "health": {"issues": issues}}
    return out


@pytest.fixture
def eks(monkeypatch) -> Eks:
    fake = Eks(addons={"c1": {}})
    monkeypatch.setattr(wiring, "eks", lambda: fake)
    return fake


def test_coredns_and_the_dependency_addons_are_awaited(eks):
    assert NAMES[0] == "coredns" and {"cert-manager", "metrics-server", "aws-mountpoint-s3-csi-driver"} <= set(NAMES)


def test_every_addon_active_ends_the_phase(eks):
    eks.addon_map["c1"] = _addons()
    result = await_addons(_doc())
    assert result.ready and "coredns v1.0.0-eksbuild.1" in result.message and "ACTIVE" in result.message


def test_a_degraded_addon_is_polled_again_not_failed(eks):
    eks.addon_map["c1"] = _addons(coredns="DEGRADED")
    result = await_addons(_doc(polls=3))
    assert not result.ready and result.wait == provision.ADDON_POLL_SECONDS
    assert result.message == "Waiting for coredns (DEGRADED)"


def test_still_degraded_after_the_bound_fails_with_the_health_issue_and_what_to_check(eks):
    eks.addon_map["c1"] = _addons(cert_manager="DEGRADED")
    with pytest.raises(PermanentError) as caught:
        await_addons(_doc(polls=provision.MAX_ADDON_POLLS))
    assert "cert-manager is DEGRADED (InsufficientNumberOfReplicas" in caught.value.message
    assert "taint" in caught.value.message and "retry" in caught.value.message


def test_a_failed_or_missing_addon_fails_at_once(eks):
    eks.addon_map["c1"] = _addons(metrics_server="CREATE_FAILED")
    with pytest.raises(PermanentError) as failed:
        await_addons(_doc())
    assert "metrics-server is CREATE_FAILED" in failed.value.message
    eks.addon_map["c1"] = {n: a for n, a in _addons().items() if n != "coredns"}
    with pytest.raises(PermanentError) as missing:
        await_addons(_doc())
    assert "coredns" in missing.value.message and "not on c1" in missing.value.message
