"""The AWS Load Balancer Controller's AWS side: its pod identity role (upstream's IAM policy) and the
association of that role with its service account, and the cluster's VPC its Deployment names."""

from __future__ import annotations

from launchpod.domain.clusters import control_plane
from launchpod.domain.dependencies import lbc
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def vpc_id(cluster: str) -> str:
    found = wiring.eks().cluster(cluster) or {}
    vpc = str((found.get("resourcesVpcConfig") or {}).get("vpcId") or "")
    if not vpc:
        raise PermanentError(f"EKS reports no VPC for {cluster}; the load balancer controller needs it. Retry.")
    return vpc


def ensure(cluster: str) -> str:
    """The controller's role (created once, its policy kept at upstream's), associated with its service
    account through EKS Pod Identity; returns the role's ARN."""
    s = settings()
    tags = control_plane.tags(cluster, s.resource_prefix)
    name = control_plane.resource_name(s.resource_prefix, cluster, "lb-controller")
    iam = wiring.iam()
    arn = iam.ensure_role(name, "pods.eks.amazonaws.com", [], tags, f"{lbc.NAME} on {cluster}, created by Launchpod")
    iam.put_inline_policy(name, "launchpod-lb-controller", lbc.iam_policy())
    wiring.eks().ensure_pod_identity_association(cluster, lbc.NAMESPACE, lbc.NAME, arn, tags)
    return arn
