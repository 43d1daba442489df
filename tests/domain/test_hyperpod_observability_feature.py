"""The HyperPod observability feature as a managed feature: the workspace, the collector's role and the add-on
planned in that order, NOOP when installed, the collector's policy scoped to its workspace, and the view's
workspace and Grafana link (its removal, the workspace kept: test_addon_feature_removal.py)."""

from __future__ import annotations

import pytest
from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.domain import features, hyperpod_observability, ownership
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from pydantic import ValidationError

from tests.domain.feature_plans import plan_steps, real_state

OURS = ownership.aws_tags("c1", "launchpod")
ADDON = "amazon-sagemaker-hyperpod-observability"
WORKSPACE = "arn:aws:aps:us-east-1:123456789012:workspace/ws-0123abcd"
GRAFANA = "arn:aws:grafana:us-east-1:123456789012:/workspaces/g-abc123"


def _steps(enabled: bool, addons: dict[str, EksAddon]) -> list[tuple[str, str, str | None]]:
    return plan_steps({"hyperpodObservability": {"enabled": enabled}}, addons)


def _view(addons: dict[str, EksAddon]):
    return next(v for v in features.views(real_state(addons)) if v.name == "hyperpodObservability")


def test_enabling_plans_the_workspace_then_the_collectors_role_then_the_pinned_add_on():
    assert _steps(True, {}) == [
        ("create", "Amazon Managed Prometheus workspace launchpod-c1-metrics", "HyperPodObservability"),
        ("create", "IAM role launchpod-c1-hp-observability", "HyperPodObservability"),
        ("create", f"EKS add-on {ADDON} v1.0.5-eksbuild.1", "HyperPodObservability"),
    ]


def test_enabling_an_installed_add_on_even_one_installed_elsewhere_is_an_empty_plan():
    assert _steps(True, {ADDON: EksAddon(ADDON, "ACTIVE")}) == []


def test_grafana_is_taken_only_when_turning_it_on():
    on = UpdateFeaturesInput(name="c1", hyperpodObservability={"enabled": True, "grafanaWorkspaceArn": GRAFANA})
    assert on.hyperpodObservability is not None and on.hyperpodObservability.grafanaWorkspaceArn == GRAFANA
    with pytest.raises(ValidationError, match="grafanaWorkspaceArn applies only with enabled true"):
        UpdateFeaturesInput(name="c1", hyperpodObservability={"enabled": False, "grafanaWorkspaceArn": GRAFANA})


def test_the_collector_may_remote_write_only_to_its_workspace_and_log_only_to_hyperpods_groups():
    statements = {s["Sid"]: s for s in hyperpod_observability.policy(WORKSPACE)["Statement"]}
    assert statements["PrometheusRemoteWrite"]["Action"] == ["aps:RemoteWrite"]
    assert statements["PrometheusRemoteWrite"]["Resource"] == WORKSPACE
    assert statements["ClusterLogs"]["Resource"][0] == (
        "arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/Clusters/*"
    )


def test_the_view_shows_the_workspace_and_the_grafana_dashboard_it_writes_to():
    values = hyperpod_observability.configuration(
        "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-0123abcd/", WORKSPACE, GRAFANA
    )
    assert values["ampWorkspace"]["prometheusEndpoint"].endswith("/workspaces/ws-0123abcd")  # no trailing slash
    view = _view({ADDON: EksAddon(ADDON, "ACTIVE", "v1.0.5-eksbuild.1", configuration=values)})
    assert view.enabled and view.status == "ACTIVE"
    assert view.settings["grafanaUrl"] == (
        "https://g-abc123.grafana-workspace.us-east-1.amazonaws.com/d/aws-sm-hp-observability-cluster-v1_0"
    )
    assert ("Amazon Managed Prometheus workspace", WORKSPACE) in {(o.kind, o.name) for o in view.objects}
    off = _view({})
    assert not off.enabled and off.status == "DISABLED" and "launchpod-c1-metrics" in (off.note or "")


OUR_GRAFANA = GrafanaWorkspace(
    id="g-0123456789",
    arn="arn:aws:grafana:us-east-1:123456789012:/workspaces/g-0123456789",
    status="ACTIVE",
    sign_in=("SAML",),
    saml_configuration_status="NOT_CONFIGURED",
)


def _grafana_steps(
    body: dict, addons: dict[str, EksAddon], grafana: GrafanaWorkspace | None = None
) -> list[tuple[str, str]]:
    request = UpdateFeaturesInput(name="c1", hyperpodObservability=body)
    real = real_state(addons, grafana=grafana)
    return [(s.action, s.target) for s in features.plan(request, real).steps]


def test_asked_to_create_grafana_the_plan_adds_its_role_and_workspace_before_the_add_on_signing_in_with_saml():
    request = UpdateFeaturesInput(name="c1", hyperpodObservability={"enabled": True, "createGrafanaWorkspace": True})
    real = real_state({})
    planned = features.plan(request, real).steps
    assert [(s.action, s.target) for s in planned] == [
        ("create", "Amazon Managed Prometheus workspace launchpod-c1-metrics"),
        ("create", "IAM role launchpod-c1-hp-observability"),
        ("create", "IAM role launchpod-c1-grafana"),
        ("create", "Amazon Managed Grafana workspace launchpod-c1-grafana"),
        ("create", f"EKS add-on {ADDON} v1.0.5-eksbuild.1"),
    ]
    assert "sign-in SAML" in planned[3].reason and "amgWorkspace" in planned[4].reason
    sso = {"enabled": True, "createGrafanaWorkspace": True, "grafanaAuthentication": "AWS_SSO"}
    assert (
        "sign-in AWS_SSO"
        in features.plan(UpdateFeaturesInput(name="c1", hyperpodObservability=sso), real).steps[3].reason
    )
    # on already: NOOP, as for an existing workspace's ARN (Grafana is chosen when the feature is turned on)
    assert _grafana_steps({"enabled": True, "createGrafanaWorkspace": True}, {ADDON: EksAddon(ADDON, "ACTIVE")}) == []


def test_turning_it_off_deletes_the_grafana_workspace_launchpod_made_and_its_role():
    ours = {ADDON: EksAddon(ADDON, "ACTIVE", tags=OURS)}
    assert _grafana_steps({"enabled": False}, ours, OUR_GRAFANA)[2:] == [
        ("delete", "Amazon Managed Grafana workspace launchpod-c1-grafana"),
        ("delete", "IAM role launchpod-c1-grafana"),
    ]
    assert len(_grafana_steps({"enabled": False}, ours)) == 2  # none made: the add-on and its role only


def test_grafana_creation_options_are_refused_where_they_cannot_apply():
    for body, words in (
        ({"enabled": False, "createGrafanaWorkspace": True}, "apply only with enabled true"),
        ({"enabled": True, "createGrafanaWorkspace": True, "grafanaWorkspaceArn": GRAFANA}, "not both"),
        ({"enabled": True, "grafanaAuthentication": "SAML"}, "only with createGrafanaWorkspace true"),
        ({"enabled": True, "createGrafanaWorkspace": True, "grafanaAuthentication": "OIDC"}, "SAML"),
    ):
        with pytest.raises(ValidationError, match=words):
            UpdateFeaturesInput(name="c1", hyperpodObservability=body)


def test_the_view_shows_the_grafana_workspace_launchpod_made_and_that_its_sign_in_is_not_set_up_yet():
    real = real_state({ADDON: EksAddon(ADDON, "ACTIVE", tags=OURS)}, grafana=OUR_GRAFANA)
    view = next(v for v in features.views(real) if v.name == "hyperpodObservability")
    assert ("Amazon Managed Grafana workspace", OUR_GRAFANA.arn, "ACTIVE") in {
        (o.kind, o.name, o.state) for o in view.objects
    }
    assert str(view.settings["grafanaSignIn"]).startswith("SAML (not configured: give the workspace your identity")
