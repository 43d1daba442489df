"""``install()``: swaps moto's Cluster for ``SandboxCluster``, replaces its cluster operations and registers
the response methods and URL patterns (idempotent; re-registers the lifecycle timings each call)."""

from __future__ import annotations

import moto.eks.models as eks_models
import moto.eks.urls as eks_urls
from moto.eks.models import EKSBackend
from moto.eks.responses import EKSResponse

from sandbox.aws.core import once, patch
from sandbox.aws.eks.clusters import create_cluster, delete_cluster, describe_cluster, list_clusters
from sandbox.aws.eks.common import LOCK, validate_role_arn
from sandbox.aws.eks.durations import register_transitions
from sandbox.aws.eks.models import SandboxCluster
from sandbox.aws.eks.responses import RESPONSE_METHODS, URL_PATHS


def install() -> None:
    """Apply the EKS extensions (idempotent); re-registers the lifecycle timings at the current scale."""
    with LOCK:
        register_transitions()
    _patch_moto()


@once
def _patch_moto() -> None:
    # EKSBackend.create_cluster instantiates the module global, so swapping it is enough.
    eks_models.Cluster = SandboxCluster  # type: ignore[misc]
    patch(eks_models, "validate_role_arn", validate_role_arn)
    patch(EKSBackend, "create_cluster", create_cluster)
    patch(EKSBackend, "describe_cluster", describe_cluster)
    patch(EKSBackend, "list_clusters", list_clusters)
    patch(EKSBackend, "delete_cluster", delete_cluster)
    for name, method in RESPONSE_METHODS.items():
        setattr(EKSResponse, name, method)
    for path in URL_PATHS:
        eks_urls.url_paths.setdefault(path, eks_urls.response.dispatch)
