"""Amazon Managed Grafana workspaces in memory (usecases.ports.GrafanaWorkspaces): CreateWorkspace answers a
workspace CREATING, which is ACTIVE once described or after ``activate`` (as AMG's is minutes later);
DeleteWorkspace leaves it DELETING, and the next look finds it gone. ``workspaces`` holds them as Grafana's
WorkspaceDescription has them, read as the adapter reads them."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.grafana import grafana_workspace
from launchpod.domain.metrics.workspaces import GrafanaWorkspace

ACCOUNT, REGION = "123456789012", "us-east-1"


class GrafanaWorkspaces:
    def __init__(self) -> None:
        self.workspaces: dict[str, dict[str, Any]] = {}  # by id
        self.created: list[dict[str, Any]] = []  # what CreateWorkspace was asked, in order

    def _tick(self) -> None:
        for workspace_id in [i for i, w in self.workspaces.items() if w["status"] == "DELETING"]:
            del self.workspaces[workspace_id]

    def owned(self, name: str, tags: dict[str, str]) -> GrafanaWorkspace | None:
        self._tick()
        return next(
            (
                grafana_workspace(w, REGION, ACCOUNT)
                for w in self.workspaces.values()
                if w["name"] == name and all(w["tags"].get(k) == v for k, v in tags.items())
            ),
            None,
        )

    def create(self, name: str, role_arn: str, authentication: str, tags: dict[str, str]) -> GrafanaWorkspace:
        if authentication not in ("SAML", "AWS_SSO"):
            raise ValueError(authentication)
        self.created.append({"name": name, "role_arn": role_arn, "authentication": authentication})
        workspace = f"g-{len(self.workspaces) + 1:010x}"
        self.workspaces[workspace] = {
            "id": workspace,
            "name": name,
            "status": "CREATING",
            "endpoint": f"{workspace}.grafana-workspace.{REGION}.amazonaws.com",
            "authentication": {"providers": [authentication]}
            | ({"samlConfigurationStatus": "NOT_CONFIGURED"} if authentication == "SAML" else {}),
            "tags": dict(tags),
        }
        return grafana_workspace(self.workspaces[workspace], REGION, ACCOUNT)

    def describe(self, workspace_id: str) -> GrafanaWorkspace | None:
        found = self.workspaces.get(workspace_id)
        if found is None:
            return None
        if found["status"] == "CREATING":
            found["status"] = "ACTIVE"
        return grafana_workspace(found, REGION, ACCOUNT)

    def activate(self) -> None:
        for w in self.workspaces.values():
            if w["status"] == "CREATING":
                w["status"] = "ACTIVE"

    def delete(self, workspace_id: str) -> None:
        if workspace_id in self.workspaces:
            self.workspaces[workspace_id]["status"] = "DELETING"
