"""Amazon Managed Prometheus workspaces in memory (usecases.ports.PrometheusWorkspaces): CreateWorkspace answers
a workspace CREATING, which ``activate`` makes ACTIVE (as AMP does some seconds later). ``workspaces`` holds them
as DescribeWorkspace answers them, read as the adapter reads them."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.amp import prometheus_workspace
from launchpod.domain.metrics.workspaces import PrometheusWorkspace

ACCOUNT, REGION = "123456789012", "us-east-1"


class AmpWorkspaces:
    def __init__(self) -> None:
        self.workspaces: dict[str, dict[str, Any]] = {}  # by id

    def owned(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace | None:
        return next(
            (
                prometheus_workspace(w)
                for w in self.workspaces.values()
                if w["alias"] == alias
                and w["status"]["statusCode"] != "DELETING"
                and all(w["tags"].get(k) == v for k, v in tags.items())
            ),
            None,
        )

    def create(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace:
        workspace = f"ws-{len(self.workspaces):08d}-0000-0000-0000-000000000000"
        self.workspaces[workspace] = {
            "workspaceId": workspace,
            "alias": alias,
            "arn": f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/{workspace}",
            "status": {"statusCode": "CREATING"},
            "prometheusEndpoint": f"https://aps-workspaces.{REGION}.amazonaws.com/workspaces/{workspace}/",
            "tags": dict(tags),
        }
        return prometheus_workspace(self.workspaces[workspace])

    def activate(self) -> None:
        for w in self.workspaces.values():
            w["status"] = {"statusCode": "ACTIVE"}
