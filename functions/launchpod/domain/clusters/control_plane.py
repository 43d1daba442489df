"""The create-control-plane workflow's rules: its phases, its input checks, its network plan."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.domain import ownership
from launchpod.domain.errors import InvalidInput
from launchpod.domain.network import DEFAULT_VPC_CIDR, plan_subnets
from launchpod.domain.operations import WorkflowPlan

KIND = "create-control-plane"

PHASES: tuple[tuple[str, str], ...] = (
    ("Network", "Network: VPC, subnets in two zones, NAT gateway"),
    ("ClusterRole", "IAM role for the EKS cluster"),
    ("CreateCluster", "Create the EKS cluster"),
    ("WaitActive", "Wait until EKS is ACTIVE"),
    ("OidcProvider", "IAM OIDC provider"),
    ("AccessEntry", "Access entry for Launchpod's role"),
    ("CoreAddons", "Core add-ons: vpc-cni, kube-proxy, eks-pod-identity-agent ACTIVE; coredns waits for nodes"),
    ("VerifyAccess", "Reach the Kubernetes API"),
)

# DaemonSet add-ons run one pod per node, so EKS reports them ACTIVE before any node exists; coredns is a
# Deployment whose replicas need a node, so it is DEGRADED (InsufficientNumberOfReplicas) until nodes join
# (launchpod.domain.addons). create-control-plane makes no nodes: it waits for the first to be ACTIVE and
# for coredns only to be created; provision-cluster awaits coredns to ACTIVE once HyperPod's nodes joined.
DAEMONSET_ADDONS: tuple[str, ...] = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
NODE_ADDONS: tuple[str, ...] = ("coredns",)
CORE_ADDONS: tuple[str, ...] = DAEMONSET_ADDONS + NODE_ADDONS

CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
EKS_CLUSTER_POLICY = "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"

# EKS takes 10-15 minutes to become ACTIVE; past 45 minutes something is wrong. EKS sends no event
# when a cluster becomes ACTIVE, so it is polled: every 10 seconds costs about a cent of Step
# Functions transitions per cluster and notices ACTIVE within seconds. Add-ons take a minute or two.
ACTIVE_POLL_SECONDS = 10
MAX_ACTIVE_POLLS = 45 * 60 // ACTIVE_POLL_SECONDS
ADDON_POLL_SECONDS = 10
MAX_ADDON_POLLS = 20 * 60 // ADDON_POLL_SECONDS

# Private /20s leave room for pods (vpc-cni gives every pod a VPC address); public /24s only hold
# the NAT gateway and load balancers.
PRIVATE_PREFIX = 20
PUBLIC_PREFIX = 24


def plan(request: CreateClusterRequest) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)


def check_zones(request: CreateClusterRequest, offered: Sequence[str], region: str) -> None:
    """Every zone asked for must exist in the region; the message lists the ones that do."""
    for index, zone in enumerate(request.availabilityZones):
        if zone not in offered:
            raise InvalidInput(
                f"{zone} is not an availability zone in {region}; choose from {', '.join(sorted(offered))}.",
                field=f"body.availabilityZones.{index}",
                rule="offered_zone",
            )


def tags(cluster: str, prefix: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Tags on everything Launchpod creates: how a phase finds its own work, and what delete may remove."""
    return ownership.aws_tags(cluster, prefix, extra)


@dataclass(frozen=True)
class SubnetPlan:
    zone: str
    cidr: str
    public: bool


def network_plan(vpc_cidr: str | None, zones: Sequence[str], taken: Sequence[str] = ()) -> list[SubnetPlan]:
    cidr = vpc_cidr or DEFAULT_VPC_CIDR
    prefixes = [PRIVATE_PREFIX] * len(zones) + [PUBLIC_PREFIX] * len(zones)
    blocks = plan_subnets(cidr, taken, prefixes)
    private = [SubnetPlan(z, b, False) for z, b in zip(zones, blocks[: len(zones)], strict=True)]
    public = [SubnetPlan(z, b, True) for z, b in zip(zones, blocks[len(zones) :], strict=True)]
    return private + public


def resource_name(prefix: str, cluster: str, purpose: str, limit: int = 64) -> str:
    """A name for an AWS resource of this cluster's, within the service's length limit (IAM: 64)."""
    name = f"{prefix}-{cluster}-{purpose}"
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: limit - 9]}-{digest}"


def shared_security_group_name(prefix: str, cluster: str) -> str:
    """The security group EKS's control plane and HyperPod's nodes share (EC2 group names: 255)."""
    return resource_name(prefix, cluster, "hyperpod", limit=255)


def eks_failure_hint(message: str) -> str:
    """Turn an EKS failure into advice: what the user can change."""
    lowered = message.lower()
    if "capacity" in lowered or "availability zone" in lowered:
        return message + " Pick other availability zones (the message lists the ones EKS accepts) and retry."
    if "subnet" in lowered:
        return message + " Check that the subnets are in two zones and have free addresses."
    if "role" in lowered or "not authorized" in lowered:
        return message + " Check the cluster role's trust policy and Launchpod's permissions."
    return message
