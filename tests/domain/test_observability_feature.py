"""The observability feature (Container Insights) as a managed feature: its pod identity role then the
add-on, NOOP when installed, and the view's log group (its removal: test_addon_feature_removal.py)."""

from __future__ import annotations

from launchpod.domain import features, observability, ownership
from launchpod.domain.clusters.eks_addon import AddonIssue, EksAddon

from tests.domain.feature_plans import plan_steps, real_state

OURS = ownership.aws_tags("c1", "launchpod")
ADDON = "amazon-cloudwatch-observability"


def _steps(enabled: bool, addons: dict[str, EksAddon]) -> list[tuple[str, str, str | None]]:
    return plan_steps({"observability": {"enabled": enabled}}, addons)


def test_enabling_creates_the_pod_identity_role_then_the_pinned_add_on_without_needing_hyperpod():
    assert _steps(True, {}) == [
        ("create", "IAM role launchpod-c1-observability", "Observability"),
        ("create", f"EKS add-on {ADDON} v6.2.0-eksbuild.1", "Observability"),
    ]


def test_enabling_an_installed_add_on_is_an_empty_plan():
    assert _steps(True, {ADDON: EksAddon(ADDON, "DEGRADED", tags=OURS)}) == []


def test_the_view_names_the_application_log_group_and_says_when_it_waits_for_nodes():
    waiting = EksAddon(
        ADDON, "DEGRADED", "v6.2.0-eksbuild.1", issues=(AddonIssue("InsufficientNumberOfReplicas", "no replicas"),)
    )
    view = next(v for v in features.views(real_state({ADDON: waiting})) if v.name == "observability")
    assert (view.enabled, view.status) == (True, "DEGRADED")
    assert view.settings == {"applicationLogGroup": "/aws/containerinsights/c1/application"}
    assert view.note is not None and "waits for nodes" in view.note
    off = next(v for v in features.views(real_state({})) if v.name == "observability")
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
