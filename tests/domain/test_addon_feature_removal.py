"""Turning off an add-on feature with a role of its own (observability, HyperPod observability): the add-on, then
its role (HyperPod observability's workspace stays), nothing when neither is there, and a refusal naming the
request's field when Launchpod did not install the add-on (ownership.AddonFeature.steps)."""

from __future__ import annotations

import pytest
from launchpod.domain import ownership
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import Conflict

from tests.domain.feature_plans import plan_steps

OURS = ownership.aws_tags("c1", "launchpod")

FEATURES = [
    pytest.param(
        "observability", "amazon-cloudwatch-observability", "launchpod-c1-observability", "Observability", id="obs"
    ),
    pytest.param(
        "hyperpodObservability",
        "amazon-sagemaker-hyperpod-observability",
        "launchpod-c1-hp-observability",
        "HyperPodObservability",
        id="hyperpod-obs",
    ),
]


def _steps(field: str, addons: dict[str, EksAddon]) -> list[tuple[str, str, str | None]]:
    return plan_steps({field: {"enabled": False}}, addons)


@pytest.mark.parametrize(("field", "addon", "role", "phase"), FEATURES)
def test_disabling_removes_the_add_on_then_its_role_and_nothing_when_absent(field, addon, role, phase):
    assert _steps(field, {addon: EksAddon(addon, "ACTIVE", tags=OURS)}) == [
        ("delete", f"EKS add-on {addon}", phase),
        ("delete", f"IAM role {role}", phase),
    ]
    assert _steps(field, {}) == []


@pytest.mark.parametrize(("field", "addon", "role", "phase"), FEATURES)
def test_disabling_an_add_on_someone_else_installed_is_refused_naming_the_field(field, addon, role, phase):
    with pytest.raises(Conflict, match="not installed by Launchpod") as caught:
        _steps(field, {addon: EksAddon(addon, "ACTIVE")})
    assert caught.value.details[0]["field"] == f"body.{field}.enabled"
