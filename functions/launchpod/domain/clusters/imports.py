"""The import-cluster workflow's rules: what an existing EKS cluster must offer to be imported."""

from __future__ import annotations

from launchpod.contracts.clusters import ImportClusterRequest
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.errors import Conflict
from launchpod.domain.operations import WorkflowPlan

KIND = "import-cluster"
PHASES: tuple[tuple[str, str], ...] = (
    ("AccessEntry", "Access entry for Launchpod's role"),
    ("VerifyAccess", "Reach the Kubernetes API"),
    ("Register", "Record the cluster as imported"),
)


def check_importable(name: str, eks: EksCluster | None) -> None:
    if eks is None:
        raise Conflict(f"EKS has no cluster named {name} in this region; check the name and region.")
    if eks.status != "ACTIVE":
        raise Conflict(f"EKS cluster {name} is {eks.status}; import it once it is ACTIVE.")
    mode = eks.authentication_mode or "CONFIG_MAP"
    if mode not in ("API", "API_AND_CONFIG_MAP"):
        raise Conflict(
            f"EKS cluster {name} uses authenticationMode {mode}; HyperPod and Launchpod need API or "
            "API_AND_CONFIG_MAP. Switch it with UpdateClusterConfig (accessConfig), then import again."
        )


def plan(request: ImportClusterRequest) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)
