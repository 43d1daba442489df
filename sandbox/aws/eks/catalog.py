"""What EKS offers: Kubernetes versions, the add-on catalogue (versions per Kubernetes version, the workloads
each add-on runs, what it requires), cluster access policies and access entry types."""

from __future__ import annotations

from typing import Any

#: The Kubernetes versions EKS offers for new clusters (standard or extended support) on the date the
#: sandbox models, 2026-12-01, from the EKS release calendar
#: (https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html; dates mirrored at
#: https://endoflife.date/amazon-eks): 1.31 left extended support on 2026-11-26; 1.32 and 1.33 are in
#: extended support; 1.34 is in standard support until 2026-12-02 and 1.35 until 2027-03-27.
#: CreateCluster refuses any other version.
KUBERNETES_VERSIONS: tuple[str, ...] = ("1.32", "1.33", "1.34", "1.35")
#: What EKS uses when CreateCluster names no version ("the default version available in Amazon EKS").
DEFAULT_KUBERNETES_VERSION = "1.34"
DEFAULT_PLATFORM_VERSION = "eks.12"

#: Add-ons the sandbox offers: name -> type, owner, publisher, default namespace, the workloads that
#: run it, and its versions (newest first, each with the Kubernetes versions it is compatible with;
#: the first compatible one is the default). ``register_addon`` adds more. Version strings are
#: plausible EKS builds, not a promise about AWS; the rules around them (DescribeAddonVersions per
#: Kubernetes version, "Addon version specified is not supported") are EKS's.
ADDON_CATALOG: dict[str, dict[str, Any]] = {}

#: A workload of an add-on: ("Deployment" | "DaemonSet", name). A DaemonSet runs one pod per node, so it
#: is complete with zero nodes; a Deployment's replicas need a node to run on.
Workload = tuple[str, str]


def register_addon(
    name: str,
    versions: list[tuple[str, tuple[str, ...]]] | str,
    *,
    addon_type: str = "other",
    owner: str = "aws",
    publisher: str = "eks",
    namespace: str = "kube-system",
    workloads: tuple[Workload, ...] = (("Deployment", ""),),
    requires: tuple[str, ...] = (),
) -> None:
    """Offer add-on ``name`` (CreateAddon refuses unknown names, as AWS does).

    ``versions`` is ``[(addon version, compatible Kubernetes versions), ...]`` newest first, or one
    version string compatible with every offered Kubernetes version.
    """
    if isinstance(versions, str):
        versions = [(versions, KUBERNETES_VERSIONS)]
    ADDON_CATALOG[name] = {
        "type": addon_type,
        "owner": owner,
        "publisher": publisher,
        "namespace": namespace,
        "versions": [(v, tuple(k)) for v, k in versions],
        "workloads": tuple((kind, workload or name) for kind, workload in workloads),
        "requires": tuple(requires),
    }


def addon_versions(name: str, kubernetes_version: str) -> list[str]:
    """The versions of add-on ``name`` offered for clusters of ``kubernetes_version``, newest first."""
    return [v for v, compatible in ADDON_CATALOG[name]["versions"] if kubernetes_version in compatible]


def default_addon_version(name: str, kubernetes_version: str) -> str | None:
    offered = addon_versions(name, kubernetes_version)
    return offered[0] if offered else None


_ALL = KUBERNETES_VERSIONS
_DS, _DEP = "DaemonSet", "Deployment"
# The workloads come from each add-on's published manifests: vpc-cni runs the aws-node DaemonSet,
# kube-proxy and eks-pod-identity-agent are DaemonSets, coredns is a Deployment
# (https://docs.aws.amazon.com/eks/latest/userguide/managing-coredns.html), the CSI drivers run a
# controller Deployment and a node DaemonSet (Mountpoint for S3 CSI v2 added its s3-csi-controller),
# cert-manager and metrics-server are Deployments.
# Add-ons whose workloads cannot start without another add-on: the HyperPod training operator's webhook
# takes its serving certificate from cert-manager, which AWS lists as its prerequisite ("Installing the
# training operator", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator-install.html).
# The inference operator's webhooks also take their certificates from cert-manager, the first dependency
# "Setting up your HyperPod clusters for model deployment" lists (sagemaker-hyperpod-model-deployment-setup).
_REQUIRES = {
    "amazon-sagemaker-hyperpod-training-operator": ("cert-manager",),
    "amazon-sagemaker-hyperpod-inference": ("cert-manager",),
}
for _name, _versions, _type, _owner, _publisher, _namespace, _workloads in [
    (
        "vpc-cni",
        [("v1.20.4-eksbuild.1", _ALL), ("v1.19.6-eksbuild.1", _ALL)],
        "networking",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "aws-node"),),
    ),
    (
        "coredns",
        [
            ("v1.12.4-eksbuild.1", ("1.33", "1.34", "1.35")),
            ("v1.12.1-eksbuild.2", ("1.33", "1.34")),
            ("v1.11.4-eksbuild.14", ("1.32", "1.33")),
            ("v1.11.1-eksbuild.9", ("1.32",)),
        ],
        "networking",
        "aws",
        "eks",
        "kube-system",
        ((_DEP, "coredns"),),
    ),
    (
        "kube-proxy",
        [
            ("v1.35.0-eksbuild.2", ("1.35",)),
            ("v1.34.1-eksbuild.2", ("1.34",)),
            ("v1.33.3-eksbuild.6", ("1.33",)),
            ("v1.32.6-eksbuild.8", ("1.32",)),
        ],
        "networking",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "kube-proxy"),),
    ),
    (
        "eks-pod-identity-agent",
        [("v1.3.8-eksbuild.2", _ALL)],
        "security",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "eks-pod-identity-agent"),),
    ),
    (
        "aws-ebs-csi-driver",
        [("v1.48.0-eksbuild.2", _ALL)],
        "storage",
        "aws",
        "eks",
        "kube-system",
        ((_DEP, "ebs-csi-controller"), (_DS, "ebs-csi-node")),
    ),
    (
        "aws-mountpoint-s3-csi-driver",
        [("v2.1.0-eksbuild.1", _ALL), ("v2.0.0-eksbuild.1", _ALL)],
        "storage",
        "aws",
        "s3",
        "kube-system",
        ((_DEP, "s3-csi-controller"), (_DS, "s3-csi-node")),
    ),
    (
        "aws-fsx-csi-driver",
        [("v1.6.0-eksbuild.1", _ALL)],
        "storage",
        "aws",
        "eks",
        "kube-system",
        ((_DEP, "fsx-csi-controller"), (_DS, "fsx-csi-node")),
    ),
    (
        "cert-manager",
        [("v1.18.2-eksbuild.2", _ALL), ("v1.18.2-eksbuild.1", _ALL)],
        "security",
        "community",
        "eks",
        "cert-manager",
        ((_DEP, "cert-manager"), (_DEP, "cert-manager-cainjector"), (_DEP, "cert-manager-webhook")),
    ),
    (
        "metrics-server",
        [("v0.8.1-eksbuild.1", _ALL), ("v0.8.0-eksbuild.2", _ALL), ("v0.8.0-eksbuild.1", _ALL)],
        "observability",
        "community",
        "eks",
        "kube-system",
        ((_DEP, "metrics-server"),),
    ),
    (
        "amazon-cloudwatch-observability",
        # v6.2.0-eksbuild.1: the build AWS's install guide names (install-CloudWatch-Observability-EKS-addon.html).
        [("v6.2.0-eksbuild.1", _ALL), ("v4.4.0-eksbuild.1", _ALL)],
        "observability",
        "aws",
        "eks",
        "amazon-cloudwatch",
        # The operator's Deployment, the agent's and Fluent Bit's DaemonSets (aws-observability/helm-charts).
        (
            (_DEP, "amazon-cloudwatch-observability-controller-manager"),
            (_DS, "cloudwatch-agent"),
            (_DS, "fluent-bit"),
        ),
    ),
    (
        "amazon-sagemaker-hyperpod-training-operator",
        [("v1.1.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "aws-hyperpod",
        ((_DEP, "hp-training-operator-hp-training-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-inference",
        [("v1.0.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "hyperpod-inference-system",
        ((_DEP, "hyperpod-inference-operator-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-taskgovernance",
        # v1.6.0-eksbuild.1 (Kueue v0.19.2) is the version AWS's upgrade guide names.
        [("v1.6.0-eksbuild.1", _ALL), ("v1.2.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "kueue-system",
        ((_DEP, "kueue-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-observability",
        [("v1.0.0-eksbuild.1", _ALL)],
        "observability",
        "aws",
        "sagemaker",
        "hyperpod-observability",
        ((_DEP, "hyperpod-observability-controller-manager"), (_DS, "hyperpod-node-collector")),
    ),
]:
    register_addon(
        _name,
        _versions,
        addon_type=_type,
        owner=_owner,
        publisher=_publisher,
        namespace=_namespace,
        workloads=_workloads,
        requires=_REQUIRES.get(_name, ()),
    )

#: Cluster access policies EKS offers (ListAccessPolicies); AssociateAccessPolicy accepts only these.
ACCESS_POLICIES = [
    "AmazonEKSAdminPolicy",
    "AmazonEKSAdminViewPolicy",
    "AmazonEKSAutoNodePolicy",
    "AmazonEKSBlockStorageClusterPolicy",
    "AmazonEKSClusterAdminPolicy",
    "AmazonEKSComputeClusterPolicy",
    "AmazonEKSEditPolicy",
    "AmazonEKSHybridPolicy",
    "AmazonEKSLoadBalancingClusterPolicy",
    "AmazonEKSNetworkingClusterPolicy",
    "AmazonEKSViewPolicy",
    "AmazonSagemakerHyperpodClusterSchedulerPolicy",
    "AmazonSagemakerHyperpodControllerPolicy",
    "AmazonSagemakerHyperpodSystemNamespacePolicy",
]
ACCESS_POLICY_ARN = "arn:{partition}:eks::aws:cluster-access-policy/{name}"
ACCESS_ENTRY_TYPES = {
    "STANDARD",
    "FARGATE_LINUX",
    "EC2_LINUX",
    "EC2_WINDOWS",
    "EC2",
    "HYBRID_LINUX",
    "HYPERPOD_LINUX",
}
