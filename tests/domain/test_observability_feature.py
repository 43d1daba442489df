"""The observability feature (Container Insights) as a managed feature: its pod identity role then the
add-on, NOOP when installed, removal only of what Launchpod installed, and the view's log group."""

from __future__ import annotations

import pytest
from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.domain import features, observability, ownership
from launchpod.domain.clusters.eks_addon import AddonIssue, EksAddon
from launchpod.domain.errors import Conflict

OURS = ownership.aws_tags("c1", "launchpod")
ADDON = "amazon-cloudwatch-observability"


def _real(addons: dict[str, EksAddon]) -> features.RealState:
    return features.RealState(cluster="c1", addons=addons, hyperpod=None, checkpoint_account=None, checkpoint_role=None)


def _steps(enabled: bool, addons: dict[str, EksAddon]) -> list[tuple[str, str, str | None]]:
    body = UpdateFeaturesInput(name="c1", observability={"enabled": enabled})
    return [(s.action, s.target, s.phase) for s in features.plan(body, _real(addons)).steps]


def test_enabling_creates_the_pod_identity_role_then_the_pinned_add_on_without_needing_hyperpod():
    assert _steps(True, {}) == [
        ("create", "IAM role launchpod-c1-observability", "Observability"),
        ("create", f"EKS add-on {ADDON} v6.2.0-eksbuild.1", "Observability"),
    ]


def test_enabling_an_installed_add_on_is_an_empty_plan():
    assert _steps(True, {ADDON: EksAddon(ADDON, "DEGRADED", tags=OURS)}) == []


def test_disabling_removes_the_add_on_then_its_role_and_nothing_when_absent():
    assert _steps(False, {ADDON: EksAddon(ADDON, "ACTIVE", tags=OURS)}) == [
        ("delete", f"EKS add-on {ADDON}", "Observability"),
        ("delete", "IAM role launchpod-c1-observability", "Observability"),
    ]
    assert _steps(False, {}) == []


def test_disabling_an_add_on_someone_else_installed_is_refused():
    with pytest.raises(Conflict, match="not installed by Launchpod") as caught:
        _steps(False, {ADDON: EksAddon(ADDON, "ACTIVE")})
    assert caught.value.details[0]["field"] == "body.observability.enabled"


def test_the_view_names_the_application_log_group_and_says_when_it_waits_for_nodes():
    waiting = EksAddon(
        ADDON, "DEGRADED", "v6.2.0-eksbuild.1", issues=(AddonIssue("InsufficientNumberOfReplicas", "no replicas"),)
    )
    view = next(v for v in features.views(_real({ADDON: waiting})) if v.name == "observability")
    assert (view.enabled, view.status) == (True, "DEGRADED")
    assert view.settings == {"applicationLogGroup": "/aws/containerinsights/c1/application"}
    assert view.note is not None and "waits for nodes" in view.note
    off = next(v for v in features.views(_real({})) if v.name == "observability")
    assert (off.enabled, off.status) == (False, "DISABLED")


def test_the_pod_filter_names_namespace_pod_and_container_as_fluent_bit_records_them():
    assert observability.pod_filter("default", "j-pods-0", "pytorch") == (
        '{ $.kubernetes.namespace_name = "default" && $.kubernetes.pod_name = "j-pods-0" && '
        '$.kubernetes.container_name = "pytorch" }'
    )
    assert "container_name" not in observability.pod_filter("default", "j-*", None)


def test_the_role_carries_the_aws_managed_policies_the_add_on_guide_names():
    assert observability.policy_arns() == [
        "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy",
        "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
    ]
