"""The Amazon Managed Prometheus and Amazon Managed Grafana workspaces the HyperPod observability feature makes,
as Launchpod reads them.

The PrometheusWorkspaces port (adapters.aws.amp) builds a PrometheusWorkspace from DescribeWorkspace's answer
(https://docs.aws.amazon.com/prometheus/latest/APIReference/API_WorkspaceDescription.html), the GrafanaWorkspaces
port (adapters.aws.grafana) a GrafanaWorkspace from Grafana's WorkspaceDescription
(https://docs.aws.amazon.com/grafana/latest/APIReference/API_WorkspaceDescription.html), so the AWS shapes stay
in the adapters."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrometheusWorkspace:
    id: str  # workspaceId, such as ws-0123abcd-...
    arn: str
    status: str  # status.statusCode: CREATING, ACTIVE, UPDATING, CREATION_FAILED or DELETING
    endpoint: str | None = None  # prometheusEndpoint: the query and remote-write base URL


@dataclass(frozen=True)
class GrafanaWorkspace:
    id: str  # such as g-0123456789
    arn: str  # the API answers none: arn:aws:grafana:<region>:<account>:/workspaces/<id>
    status: str  # CREATING, ACTIVE, UPDATING, DELETING, FAILED, CREATION_FAILED, ...
    sign_in: tuple[str, ...] = ()  # authentication.providers: SAML and/or AWS_SSO
    saml_configuration_status: str | None = None  # authentication.samlConfigurationStatus: CONFIGURED or NOT_CONFIGURED
