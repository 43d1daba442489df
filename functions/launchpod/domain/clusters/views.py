"""How a cluster is shown: our registry record joined with what EKS and SageMaker say now."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.clusters import ClusterView, EksStatusView, HyperPodStatusView


def cluster_view(
    name: str,
    region: str,
    record: dict[str, Any] | None,
    eks: dict[str, Any] | None,
    addons: dict[str, dict[str, Any]],
    hyperpod: dict[str, Any] | None,
) -> ClusterView:
    record = record or {}
    vpc = (eks or {}).get("resourcesVpcConfig", {})
    eks_view = EksStatusView(
        status=eks["status"] if eks else "NOT_FOUND",
        arn=(eks or {}).get("arn"),
        version=(eks or {}).get("version"),
        endpoint=(eks or {}).get("endpoint"),
        vpcId=vpc.get("vpcId"),
        subnetIds=list(vpc.get("subnetIds", [])),
        authenticationMode=(eks or {}).get("accessConfig", {}).get("authenticationMode"),
        addons={n: a.get("status", "UNKNOWN") for n, a in addons.items()},
    )
    hp_view = HyperPodStatusView(
        status=hyperpod["ClusterStatus"] if hyperpod else "NOT_CREATED",
        arn=(hyperpod or {}).get("ClusterArn"),
        nodeRecovery=(hyperpod or {}).get("NodeRecovery"),
        failureMessage=(hyperpod or {}).get("FailureMessage"),
    )
    return ClusterView(
        name=name,
        region=record.get("region", region),
        source=record.get("source", "created"),
        eks=eks_view,
        hyperpod=hp_view,
        activeOperationId=record.get("lockedBy"),
        createdAt=record.get("registeredAt"),
    )


def owned_by_launchpod(eks: dict[str, Any] | None, name: str, prefix: str) -> bool:
    return bool(eks) and (eks or {}).get("tags", {}).get(f"{prefix}:cluster") == name
