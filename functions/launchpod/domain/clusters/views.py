"""How a cluster is shown: our registry record joined with what EKS and SageMaker say now."""

from __future__ import annotations

from launchpod.contracts.clusters import ClusterView, EksStatusView, HyperPodStatusView
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster


def cluster_view(
    name: str,
    region: str,
    record: ClusterRecord | None,
    eks: EksCluster | None,
    addons: dict[str, EksAddon],
    hyperpod: HyperPodCluster | None,
) -> ClusterView:
    eks_view = EksStatusView(
        status=eks.status if eks else "NOT_FOUND",
        arn=eks.arn if eks else None,
        version=eks.version if eks else None,
        endpoint=eks.endpoint if eks else None,
        vpcId=eks.vpc_id if eks else None,
        subnetIds=list(eks.subnet_ids) if eks else [],
        authenticationMode=eks.authentication_mode if eks else None,
        addons={n: a.status or "UNKNOWN" for n, a in addons.items()},
    )
    hp_view = HyperPodStatusView(
        status=hyperpod.status if hyperpod else "NOT_CREATED",
        arn=hyperpod.arn if hyperpod else None,
        nodeRecovery=hyperpod.node_recovery if hyperpod else None,
        failureMessage=hyperpod.failure_message if hyperpod else None,
    )
    return ClusterView(
        name=name,
        region=record.region if record else region,
        source=record.source if record else "created",
        eks=eks_view,
        hyperpod=hp_view,
        activeOperationId=record.locked_by if record else None,
        createdAt=record.registered_at if record else None,
    )


def owned_by_launchpod(eks: EksCluster | None, name: str, prefix: str) -> bool:
    return eks is not None and eks.tags.get(f"{prefix}:cluster") == name
