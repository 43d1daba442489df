"""Amazon Managed Grafana workspaces: the one Launchpod made for a cluster's HyperPod observability, found by
its name and ownership tags, new ones and their deletion (the ``grafana`` control plane: ListWorkspaces,
CreateWorkspace, DescribeWorkspace, DeleteWorkspace; https://docs.aws.amazon.com/grafana/latest/APIReference/).

CreateWorkspace answers 202 with the workspace CREATING; it is ACTIVE minutes later. Through the API the
workspace's permissions are CUSTOMER_MANAGED with a role the caller made ("Use only the CUSTOMER_MANAGED
permission type when creating a workspace with the API", CreateWorkspace's permissionType), and its users sign
in through SAML or IAM Identity Center (``authenticationProviders``)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call
from launchpod.adapters.aws.tags import carries
from launchpod.domain.errors import NotFound
from launchpod.domain.metrics.workspaces import GrafanaWorkspace

GONE = ("DELETING",)


def grafana_workspace(workspace: dict[str, Any], region: str, account: str) -> GrafanaWorkspace:
    """A WorkspaceDescription (or ListWorkspaces' summary) as Launchpod reads it; the API answers no ARN: it is
    ``arn:aws:grafana:<region>:<account>:/workspaces/<id>`` (Service Authorization Reference, resource type
    ``workspace``)."""
    sign_in = workspace.get("authentication") or {}
    return GrafanaWorkspace(
        id=str(workspace["id"]),
        arn=f"arn:aws:grafana:{region}:{account}:/workspaces/{workspace['id']}",
        status=str(workspace["status"]),
        sign_in=tuple(sign_in.get("providers") or ()),
        saml_configuration_status=sign_in.get("samlConfigurationStatus"),
    )


class GrafanaWorkspaces:
    def __init__(self) -> None:
        self.grafana = client("grafana")
        self._account: str | None = None

    def _where(self) -> tuple[str, str]:
        # GetCallerIdentity needs no permission ("No permissions are required to perform this operation",
        # AWS STS API reference)
        if self._account is None:
            with aws_call("sts:GetCallerIdentity"):
                self._account = str(client("sts").get_caller_identity()["Account"])
        return str(self.grafana.meta.region_name), self._account

    def owned(self, name: str, tags: dict[str, str]) -> GrafanaWorkspace | None:
        """The workspace with this name that carries every tag in ``tags`` (one Launchpod made) and is not
        being deleted; None when there is none."""
        with aws_call("grafana:ListWorkspaces"):
            pages = self.grafana.get_paginator("list_workspaces").paginate()
            listed = [w for page in pages for w in page["workspaces"]]
        for summary in listed:
            found_tags = summary.get("tags") or {}
            ours = carries(found_tags, tags)
            if summary.get("name") == name and summary["status"] not in GONE and ours:
                return grafana_workspace(summary, *self._where())
        return None

    def create(self, name: str, role_arn: str, authentication: str, tags: dict[str, str]) -> GrafanaWorkspace:
        """A new workspace reading Amazon Managed Prometheus with ``role_arn``, for this account only, its users
        signing in with ``authentication`` (SAML or AWS_SSO), tagged on create; CREATING at first."""
        with aws_call("grafana:CreateWorkspace"):
            made = self.grafana.create_workspace(
                workspaceName=name,
                accountAccessType="CURRENT_ACCOUNT",
                permissionType="CUSTOMER_MANAGED",
                workspaceRoleArn=role_arn,
                authenticationProviders=[authentication],
                workspaceDataSources=["PROMETHEUS"],
                tags=tags,
            )["workspace"]
        return grafana_workspace(made, *self._where())

    def describe(self, workspace_id: str) -> GrafanaWorkspace | None:
        """The workspace; None when it does not exist (any more)."""
        try:
            with aws_call("grafana:DescribeWorkspace"):
                found = self.grafana.describe_workspace(workspaceId=workspace_id)["workspace"]
        except NotFound:
            return None
        return grafana_workspace(found, *self._where())

    def delete(self, workspace_id: str) -> None:
        """Start deleting the workspace (DELETING, then gone); nothing when it is gone already."""
        try:
            with aws_call("grafana:DeleteWorkspace"):
                self.grafana.delete_workspace(workspaceId=workspace_id)
        except NotFound:
            return
