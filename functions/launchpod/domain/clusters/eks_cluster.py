"""An EKS cluster as Launchpod reads it: its identity, state, network, access mode, logging and tags.

The ControlPlanes port (adapters.aws.eks) builds it from DescribeCluster's answer, so the AWS shape stays in the
adapter (https://docs.aws.amazon.com/eks/latest/APIReference/API_Cluster.html)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EksCluster:
    name: str
    arn: str
    status: str  # CREATING, ACTIVE, DELETING, FAILED, UPDATING or PENDING
    version: str | None = None  # the Kubernetes version, such as "1.32"
    endpoint: str | None = None  # the API server's URL, once EKS has published it
    certificate_authority: str | None = None  # certificateAuthority.data: the API server's CA, base64 PEM
    vpc_id: str | None = None
    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()  # the ones given at creation, next to EKS's own
    cluster_security_group_id: str | None = None  # the one EKS made and attaches to its interfaces
    authentication_mode: str | None = None  # accessConfig.authenticationMode; absent means CONFIG_MAP
    log_types: tuple[str, ...] = ()  # the control-plane log types enabled
    oidc_issuer: str | None = None  # identity.oidc.issuer: what an IRSA role's trust names
    tags: dict[str, str] = field(default_factory=dict)
