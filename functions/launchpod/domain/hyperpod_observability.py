"""The HyperPod observability feature: the EKS add-on ``amazon-sagemaker-hyperpod-observability`` writing GPU
(DCGM), EFA, node, training and inference metrics into an Amazon Managed Service for Prometheus workspace,
which Launchpod's metrics routes read back (domain.metrics).

Turned on, the plan makes (or reuses) a workspace Launchpod tagged for the cluster, the collector's pod
identity role (trusted by ``pods.eks.amazonaws.com``; ``aps:RemoteWrite`` on that workspace and CloudWatch Logs
on ``/aws/sagemaker/Clusters/*``, as AWS's Terraform sample grants it), then the add-on with the workspace in
its ``configurationValues.ampWorkspace`` ("Amazon SageMaker HyperPod observability",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-observability-addon.html; the pinned entry
in ``dependencies/manifest.yaml`` cites the rest). Amazon Managed Grafana is optional: an existing workspace's
ARN is passed to the add-on when given, or Launchpod creates one (``createGrafanaWorkspace``): a workspace role
trusted by ``grafana.amazonaws.com`` that may read the Prometheus workspace, then the Grafana workspace
(CreateWorkspace, CURRENT_ACCOUNT, CUSTOMER_MANAGED: "Use only the CUSTOMER_MANAGED permission type when
creating a workspace with the API", Amazon Managed Grafana API reference; data source PROMETHEUS), awaited until
ACTIVE, and passed to the add-on. People sign in with SAML by default (any identity provider the team has; its
metadata is set in the workspace afterwards) or IAM Identity Center (AWS_SSO), which the account must have
enabled. Turned off, the add-on and the role go, and so do the Grafana workspace and its role when Launchpod
made them; the Prometheus workspace is kept (its samples are the user's data, like Container Insights' log
group) and reused when the feature is turned on again.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from launchpod.contracts.features import FeatureObjectView, FeatureView
from launchpod.domain import addons as addon_health
from launchpod.domain import ownership
from launchpod.domain.clusters.control_plane import resource_name
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.dependencies import HyperPodObservabilityEntry, manifest
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from launchpod.domain.plan import Step

PHASE = "HyperPodObservability"
FIELD = "hyperpodObservability"
GRAFANA_DASHBOARD = "aws-sm-hp-observability-cluster-v1_0"  # the cluster dashboard's uid the HyperPod CLI opens


def entry() -> HyperPodObservabilityEntry:
    return manifest().features.hyperpodObservability


role_name = partial(resource_name, purpose="hp-observability")  # (prefix, cluster) -> the add-on's role
# The name of the Grafana workspace Launchpod makes for a cluster, and of its workspace role.
grafana_name = partial(resource_name, purpose="grafana")


def grafana_policy(workspace_arn: str) -> dict[str, Any]:
    """The Grafana workspace role's permissions: query this Prometheus workspace (and find it), as the Prometheus
    data source's customer-managed policy in "Amazon Managed Grafana permissions and policies for AWS data
    sources and notification channels" grants, its query actions scoped to the one workspace."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "FindWorkspaces",
                "Effect": "Allow",
                "Action": ["aps:ListWorkspaces"],
                "Resource": "*",
            },
            {
                "Sid": "QueryWorkspace",
                "Effect": "Allow",
                "Action": [
                    "aps:DescribeWorkspace",
                    "aps:QueryMetrics",
                    "aps:GetLabels",
                    "aps:GetSeries",
                    "aps:GetMetricMetadata",
                ],
                "Resource": workspace_arn,
            },
        ],
    }


def workspace_alias(prefix: str, cluster: str) -> str:
    """The alias of the workspace Launchpod makes for a cluster (AMP aliases take up to 100 characters)."""
    return resource_name(prefix, cluster, "metrics")


def configuration(endpoint: str, workspace_arn: str, grafana_arn: str | None = None) -> dict[str, Any]:
    """The add-on's configuration values: the workspace it remote-writes to (``prometheusEndpoint`` without its
    trailing slash, as AWS's sample writes it) and, when given, the Grafana workspace its dashboards go to. The
    metric categories keep the add-on's defaults (training, inference, cluster, node and accelerated compute
    on; task governance, scaling and network off: "HyperPod cluster metrics",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-observability-cluster-metrics.html),
    except network metrics: Launchpod's node charts draw EFA throughput, so they are asked for."""
    values: dict[str, Any] = {
        "ampWorkspace": {"prometheusEndpoint": endpoint.rstrip("/"), "arn": workspace_arn},
        "metricsProvider": {"networkMetrics": {"level": "BASIC", "scrapeInterval": 30}},
    }
    if grafana_arn:
        values["amgWorkspace"] = {"workspaceName": grafana_arn.rpartition("/")[2], "arn": grafana_arn}
    return values


def policy(workspace_arn: str) -> dict[str, Any]:
    """The collector's permissions: remote write into this workspace only, and CloudWatch Logs on HyperPod's
    cluster log groups (the region and account are the workspace's)."""
    _, _, _, region, account, _ = workspace_arn.split(":", 5)
    partition = workspace_arn.split(":")[1]
    groups = f"arn:{partition}:logs:{region}:{account}:log-group:{entry().logGroups}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "PrometheusRemoteWrite",
                "Effect": "Allow",
                "Action": ["aps:RemoteWrite"],
                "Resource": workspace_arn,
            },
            {
                "Sid": "ClusterLogs",
                "Effect": "Allow",
                "Action": [
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:DescribeLogGroups",
                    "logs:DescribeLogStreams",
                    "logs:PutLogEvents",
                ],
                "Resource": [groups, f"{groups}:log-stream:*"],
            },
        ],
    }


def grafana_url(values: dict[str, Any]) -> str | None:
    """The cluster dashboard in the add-on's Grafana workspace (arn:aws:grafana:<region>:<account>:/workspaces/
    <id>), as the HyperPod CLI builds it."""
    arn = str((values.get("amgWorkspace") or {}).get("arn") or "")
    parts, workspace = arn.split(":"), arn.rpartition("/")[2]
    if len(parts) < 6 or not workspace:
        return None
    region = parts[3]
    return f"https://{workspace}.grafana-workspace.{region}.amazonaws.com/d/{GRAFANA_DASHBOARD}"


def view(
    addons: dict[str, EksAddon], cluster: str, prefix: str, grafana: GrafanaWorkspace | None = None
) -> FeatureView:
    """``grafana``: the Grafana workspace Launchpod made for the cluster, when there is one."""
    obs = entry()
    addon = addons.get(obs.addon)
    values = addon.configuration if addon else {}
    amp = values.get("ampWorkspace") or {}
    objects = [FeatureObjectView(kind="EKS add-on", name=obs.addon, state=str(addon.status) if addon else None)]
    objects += addon_health.pod_identity_objects(addon)
    settings: dict[str, int | str] = {}
    if amp.get("arn"):
        objects.append(FeatureObjectView(kind="Amazon Managed Prometheus workspace", name=str(amp["arn"]), state=None))
        settings["prometheusEndpoint"] = str(amp.get("prometheusEndpoint") or "")
    url = grafana_url(values)
    if url:
        settings["grafanaUrl"] = url
    if grafana is not None:
        workspace = FeatureObjectView(kind="Amazon Managed Grafana workspace", name=grafana.arn, state=grafana.status)
        objects.append(workspace)
        unset = grafana.saml_configuration_status == "NOT_CONFIGURED"
        settings["grafanaSignIn"] = ", ".join(grafana.sign_in) + (
            " (not configured: give the workspace your identity provider's SAML metadata in the Amazon Managed"
            " Grafana console, Authentication tab)"
            if unset
            else ""
        )
    note = addon_health.health_note(obs.addon, addon)
    if addon is None:
        note = (
            "Turn it on for GPU, EFA, job and endpoint charts: Launchpod makes an Amazon Managed Prometheus"
            f" workspace ({workspace_alias(prefix, cluster)}), the collector's role and the add-on."
        )
    return FeatureView(
        name="hyperpodObservability",
        title="HyperPod observability (Amazon Managed Prometheus)",
        **addon_health.feature_facts(addon),
        settings=settings,
        objects=objects,
        dependsOn=["eks-pod-identity-agent", "HyperPod nodes (its exporters run on them)"],
        note=note
        or "Metrics charts read this workspace; it is kept when the feature is turned off (its samples are yours).",
    )


def steps(
    addons: dict[str, EksAddon],
    cluster: str,
    prefix: str,
    wanted: bool,
    sign_in: str | None = None,
    grafana: GrafanaWorkspace | None = None,
) -> list[Step]:
    """``sign_in``: create a Grafana workspace with this sign-in (SAML or AWS_SSO) when turning it on; ``grafana``:
    the Grafana workspace Launchpod made for the cluster before, if any (deleted when turning it off)."""
    obs = entry()
    role = role_name(prefix, cluster)

    def install() -> list[Step]:
        found = [
            Step(
                "create",
                f"Amazon Managed Prometheus workspace {workspace_alias(prefix, cluster)}",
                "the add-on remote-writes its metrics there; reused when Launchpod made it before",
                PHASE,
            ),
            Step(
                "create",
                f"IAM role {role}",
                f"pod identity for {obs.namespace}/{obs.serviceAccount}: aps:RemoteWrite on that workspace,"
                f" CloudWatch Logs on {obs.logGroups}",
                PHASE,
            ),
        ]
        if sign_in is not None:
            name = grafana_name(prefix, cluster)
            found += [
                Step(
                    "create",
                    f"IAM role {name}",
                    "the Grafana workspace's role (trusted by grafana.amazonaws.com): queries the Prometheus"
                    " workspace above",
                    PHASE,
                ),
                Step(
                    "create",
                    f"Amazon Managed Grafana workspace {name}",
                    f"createGrafanaWorkspace is true; data source Prometheus, sign-in {sign_in}"
                    + ("" if grafana is None else "; reused: Launchpod made it before"),
                    PHASE,
                ),
            ]
        found.append(
            Step(
                "create",
                f"EKS add-on {obs.addon} {obs.version}",
                "hyperpodObservability.enabled is true and the add-on is not installed; configuration values"
                " ampWorkspace (the workspace above)" + ("" if sign_in is None else " and amgWorkspace"),
                PHASE,
            )
        )
        return found

    feature = ownership.AddonFeature(obs.addon, FIELD, PHASE, role, "the collector's")
    steps = feature.steps(addons, cluster, prefix, wanted, install)
    if not wanted and grafana is not None:
        name = grafana_name(prefix, cluster)
        steps += [
            Step(
                "delete", f"Amazon Managed Grafana workspace {name}", "created by Launchpod for the dashboards", PHASE
            ),
            Step("delete", f"IAM role {name}", "the Grafana workspace's role, created by Launchpod", PHASE),
        ]
    return steps
