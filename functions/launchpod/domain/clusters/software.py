"""The update-software workflow's rules: a rolling UpdateClusterSoftware and its completion."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.hyperpod import UpdateSoftwareInput
from launchpod.domain.operations import WorkflowPlan

KIND = "update-software"
PHASES: tuple[tuple[str, str], ...] = (
    ("StartUpdate", "UpdateClusterSoftware with a rolling batch policy"),
    ("WaitUpdated", "Wait until every batch is updated and the cluster is InService"),
)
MAX_POLLS = 360
POLL_SECONDS = 60


def plan(request: UpdateSoftwareInput) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)


def parameters(request: UpdateSoftwareInput, cluster: str, groups: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ClusterName": cluster,
        "DeploymentConfig": {
            "RollingUpdatePolicy": {
                "MaximumBatchSize": {"Type": request.maxBatchSize.type, "Value": request.maxBatchSize.value}
            },
            "WaitIntervalInSeconds": request.waitIntervalSeconds,
        },
    }
    chosen = request.instanceGroups or groups
    params["InstanceGroups"] = [{"InstanceGroupName": g} for g in chosen]
    return params
