"""The inference operator as a managed feature: cert-manager once, the FSx CSI driver it fails without, its
IRSA execution role and add-on, refused while a dependency add-on reconcile-dependencies installs is
missing, NOOP when installed."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.domain import features, ownership
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import Conflict

from tests.domain.feature_plans import plan_steps, real_state

OURS = ownership.aws_tags("c1", "launchpod")
DEPS = {n: EksAddon(n, "ACTIVE") for n in ("aws-mountpoint-s3-csi-driver", "metrics-server")}
ADDON = "amazon-sagemaker-hyperpod-inference"


IN_SERVICE = hyperpod_cluster_of({"ClusterStatus": "InService"})


def _steps(body: dict, addons: dict[str, EksAddon]) -> list[tuple[str, str, str | None]]:
    return plan_steps(body, addons, hyperpod=IN_SERVICE)


def test_enabling_installs_cert_manager_and_the_fsx_csi_driver_then_the_role_and_the_addon():
    steps = _steps({"inferenceOperator": {"enabled": True}}, DEPS)
    assert steps[0] == ("install", "EKS add-on cert-manager", "CertManager")
    assert steps[1] == ("install", "EKS add-on aws-fsx-csi-driver", "InferenceOperator")
    assert steps[2] == ("create", "IAM role launchpod-c1-inference-operator", "InferenceOperator")
    assert steps[3][1].startswith(f"EKS add-on {ADDON} v") and steps[3][2] == "InferenceOperator"


def test_both_operators_at_once_install_cert_manager_once():
    steps = _steps({"trainingOperator": {"enabled": True}, "inferenceOperator": {"enabled": True}}, DEPS)
    assert [t for _, t, _ in steps].count("EKS add-on cert-manager") == 1


def test_a_missing_dependency_addon_is_refused_naming_it_and_the_route_that_installs_it():
    with pytest.raises(
        Conflict, match=r"aws-mountpoint-s3-csi-driver is not installed \(installing the cluster's dependencies"
    ):
        _steps({"inferenceOperator": {"enabled": True}}, {"metrics-server": EksAddon("metrics-server", "ACTIVE")})


def test_installed_is_noop_and_disabling_removes_addon_and_role_only_when_ours():
    mine = DEPS | {ADDON: EksAddon(ADDON, "ACTIVE", tags=OURS)}
    assert _steps({"inferenceOperator": {"enabled": True}}, mine) == []
    assert [a for a, _, _ in _steps({"inferenceOperator": {"enabled": False}}, mine)] == ["delete", "delete"]
    with pytest.raises(Conflict, match="not installed by Launchpod"):
        _steps({"inferenceOperator": {"enabled": False}}, DEPS | {ADDON: EksAddon(ADDON, "ACTIVE")})


def test_the_view_shows_it_disabled_with_what_blocks_it():
    view = next(v for v in features.views(real_state({}, hyperpod=IN_SERVICE)) if v.name == "inferenceOperator")
    assert not view.enabled and view.status == "DISABLED"
    assert any("metrics-server" in b for b in view.blockedBy)
    assert features.inference_enabled({ADDON: EksAddon(ADDON, "ACTIVE")}) and not features.inference_enabled({})
