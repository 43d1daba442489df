"""CoreAddons and reconcile-dependencies' Addons against EKS's add-on states: a Deployment add-on that is
DEGRADED only for want of nodes is waiting, not failed; any other DEGRADED, or a failed add-on, fails
with EKS's words; a DaemonSet add-on must be ACTIVE; an add-on newer than the pin is never downgraded."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import dependencies
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.usecases.workflows import reconcile_dependencies
from launchpod.usecases.workflows.create_control_plane import core_addons

from tests.fakes.eks import Eks

NO_NODES = {"status": "DEGRADED", "health": {"issues": [{"code": "InsufficientNumberOfReplicas", "message": "m"}]}}
ACTIVE = {"status": "ACTIVE", "health": {"issues": []}}


@pytest.fixture
def eks(monkeypatch) -> Eks:
    fake = Eks({"c1": {"name": "c1", "status": "ACTIVE", "version": "1.34"}}, {"c1": {}})
    monkeypatch.setattr(wiring, "eks", lambda: fake)
    return fake


def _doc(kind: str, request: dict[str, Any]) -> WorkflowInput:
    return WorkflowInput(operationId="op-0123456789", kind=kind, target="c1", request=request)


def _core(**overrides: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {n: {**ACTIVE, "addonVersion": "v1"} for n in ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")}
    found["coredns"] = {**NO_NODES, "addonVersion": "v1.12.4-eksbuild.1"}
    return {**found, **overrides}


def test_core_addons_succeed_with_coredns_waiting_for_nodes(eks):
    eks.addon_map["c1"] = _core()
    result = core_addons(_doc("create-control-plane", {"name": "c1"}))
    assert result.ready and result.outputs["waitingForNodes"] == ["coredns"]
    assert "vpc-cni v1, kube-proxy v1, eks-pod-identity-agent v1 ACTIVE." in result.message
    assert "coredns v1.12.4-eksbuild.1 waits for nodes" in result.message


def test_core_addons_wait_while_a_daemonset_addon_or_coredns_is_still_creating(eks):
    eks.addon_map["c1"] = _core(**{"kube-proxy": {"status": "CREATING"}, "coredns": {"status": "CREATING"}})
    result = core_addons(_doc("create-control-plane", {"name": "c1"}))
    assert not result.ready and result.message == "Waiting for coredns (CREATING), kube-proxy (CREATING)"


def test_core_addons_are_created_when_missing(eks):
    eks.addon_map["c1"] = {}
    result = core_addons(_doc("create-control-plane", {"name": "c1"}))
    assert [c["name"] for c in eks.created] == [
        "vpc-cni",
        "kube-proxy",
        "eks-pod-identity-agent",
        "coredns",
    ] and not result.ready


def test_degraded_for_another_reason_fails_with_ekss_words(eks):
    conflict = {"status": "DEGRADED", "health": {"issues": [{"code": "ConfigurationConflict", "message": "x owns y"}]}}
    eks.addon_map["c1"] = _core(coredns=conflict)
    with pytest.raises(PermanentError, match=r"coredns is DEGRADED \(ConfigurationConflict: x owns y\)"):
        core_addons(_doc("create-control-plane", {"name": "c1"}))


def test_dependency_addons_on_a_cluster_without_nodes_each_wait_for_nodes(eks):
    wanted = dependencies.wanted_addons(False)
    eks.addon_map["c1"] = {a.name: {**NO_NODES, "addonVersion": a.version} for a in wanted}
    result = reconcile_dependencies.addons(_doc("reconcile-dependencies", {"name": "c1", "includeOptional": False}))
    assert result.ready and result.outputs["waitingForNodes"] == [a.name for a in wanted]
    for a in wanted:
        assert f"{a.name} {a.version} waits for nodes" in result.message


def test_a_dependency_addon_newer_than_its_pin_is_not_downgraded_and_an_older_one_is_moved_up(eks):
    wanted = dependencies.wanted_addons(False)
    eks.addon_map["c1"] = {a.name: {**ACTIVE, "addonVersion": a.version} for a in wanted}
    eks.addon_map["c1"]["cert-manager"]["addonVersion"] = "v9.0.0-eksbuild.1"
    eks.addon_map["c1"]["metrics-server"] = {**NO_NODES, "addonVersion": "v0.7.0-eksbuild.1"}
    reconcile_dependencies.addons(_doc("reconcile-dependencies", {"name": "c1", "includeOptional": False}))
    pinned = {a.name: a.version for a in wanted}
    assert eks.updated == [("metrics-server", pinned["metrics-server"])]


def test_a_pin_eks_does_not_offer_for_the_clusters_kubernetes_version_gets_ekss_default(eks):
    pinned = {a.name: a.version for a in dependencies.wanted_addons(False)}
    mountpoint = "aws-mountpoint-s3-csi-driver"  # installed: its pod identity role is not this test's
    eks.addon_map["c1"] = {mountpoint: {**ACTIVE, "addonVersion": pinned[mountpoint]}}
    eks.offered["cert-manager"] = (["v1.19.0-eksbuild.1"], "v1.19.0-eksbuild.1")
    eks.offered["metrics-server"] = (["v0.8.1-eksbuild.1", pinned["metrics-server"]], "v0.8.1-eksbuild.1")

    reconcile_dependencies.addons(_doc("reconcile-dependencies", {"name": "c1", "includeOptional": False}))

    versions = {c["name"]: c["version"] for c in eks.created}
    assert versions["cert-manager"] == "v1.19.0-eksbuild.1"  # the pin is not offered: the default
    assert versions["metrics-server"] == pinned["metrics-server"]  # offered: the pin, not the default


def test_an_addon_eks_offers_nothing_of_for_the_kubernetes_version_fails_naming_it(eks):
    eks.addon_map["c1"] = {
        "cert-manager": {**ACTIVE, "addonVersion": "v1"},
        "aws-mountpoint-s3-csi-driver": {**ACTIVE, "addonVersion": "v2"},
    }
    eks.offered["metrics-server"] = ([], None)
    with pytest.raises(PermanentError, match=r"metrics-server: EKS offers no version of it for Kubernetes 1\.34"):
        reconcile_dependencies.addons(_doc("reconcile-dependencies", {"name": "c1", "includeOptional": False}))
