"""The periodic driver: HyperPod's clock moves without callers, so a ticker settles every cluster, pushes
changed Node lists and announces status changes."""

from __future__ import annotations

from typing import Any

from sandbox.aws.sagemaker.common import LOCK
from sandbox.aws.sagemaker.events import announce_changes, status_changes
from sandbox.aws.sagemaker.kube_nodes import pending_pushes, push_nodes
from sandbox.aws.sagemaker.lifecycle import settle_cluster
from sandbox.aws.sagemaker.models import HyperPodCluster
from sandbox.aws.sagemaker.network import one_look


def sync_nodes() -> None:
    """Settle every cluster of every backend, push changed Node lists and announce status changes
    (for a periodic caller)."""
    from moto.sagemaker.models import sagemaker_backends

    pending: list[tuple[Any, ...]] = []
    changes: list[tuple[str, str, dict[str, Any]]] = []
    with LOCK, one_look():
        for account in list(sagemaker_backends.keys()):
            for region in list(sagemaker_backends[account].keys()):
                backend = sagemaker_backends[account][region]
                eks: list[str] = []
                for cluster in list(backend.clusters.values()):
                    if isinstance(cluster, HyperPodCluster):
                        settle_cluster(backend, cluster)
                        if cluster.eks_cluster_name:
                            eks.append(cluster.eks_cluster_name)
                pending += pending_pushes(backend, eks)
                changes += status_changes(backend)
    push_nodes(pending)
    announce_changes(changes)


def ticker(interval: float = 0.1) -> Any:
    """``sync_nodes`` every ``interval`` real seconds: HyperPod's clock moves without callers."""
    from sandbox.controllers.periodic import Periodic

    return Periodic("sandbox-hyperpod", interval, sync_nodes)
