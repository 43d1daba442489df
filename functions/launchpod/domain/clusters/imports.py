"""The import-cluster workflow's rules: what an existing EKS cluster must offer to be imported."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.clusters import ImportClusterRequest
from launchpod.domain.errors import Conflict
from launchpod.domain.operations import WorkflowPlan

KIND = "import-cluster"
PHASES: tuple[tuple[str, str], ...] = (
    ("AccessEntry", "Access entry for Launchpod's role"),
    ("VerifyAccess", "Reach the Kubernetes API"),
    ("Register", "Record the cluster as imported"),
)


def check_importable(name: str, eks: dict[str, Any] | None) -> None:
    if eks is None:
        raise Conflict(f"EKS has no cluster named {name} in this region; check the name and region.")
    if eks.get("status") != "ACTIVE":
        raise Conflict(f"EKS cluster {name} is {eks.get('status')}; import it once it is ACTIVE.")
    mode = (eks.get("accessConfig") or {}).get("authenticationMode", "CONFIG_MAP")
    if mode not in ("API", "API_AND_CONFIG_MAP"):
        raise Conflict(
            f"EKS cluster {name} uses authenticationMode {mode}; HyperPod and Launchpod need API or "
            "API_AND_CONFIG_MAP. Switch it with UpdateClusterConfig (accessConfig), then import again."
        )


def plan(request: ImportClusterRequest) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)
