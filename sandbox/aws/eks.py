"""moto extensions that make EKS behave like the real control plane Launchpod drives.

Stock moto 5.2.5 creates clusters ACTIVE at once, drops ``accessConfig``, deletes clusters instantly and
answers 404 for add-ons, access entries and pod identity. This module adds those, inside moto (same
backends, same endpoint, in-process and ThreadedMotoServer alike), using moto's own mechanism:

* an operation is a response method named after botocore's snake_case operation returning
  ``ActionResult(dict)`` (moto serialises it with botocore's output shape), plus, because EKS is a
  REST-JSON service, a URL regex in ``moto.eks.urls.url_paths``; moto's router then finds the operation
  and its path parameters from botocore's model, so request shapes are exactly what botocore sends;
* lifecycles are moto's ``ManagedState`` with ``time`` transitions in *simulated* seconds (cluster
  CREATING/UPDATING -> ACTIVE after 600, add-on CREATING/UPDATING -> ACTIVE after 60; scaled by
  ``sandbox.aws.clock``), overridable like any moto model (``/moto-api/state-manager``, models
  ``eks::cluster`` and ``eks::addon``). Deletions (cluster ~120 s, add-on ~30 s) keep the resource
  visible as DELETING until it expires. UpdateClusterConfig, UpdateClusterVersion and UpdateAddon
  return update records that DescribeUpdate/ListUpdates report InProgress until the resource is
  ACTIVE again;
* an add-on's health follows its workloads: once rolled out, an add-on that runs a Deployment is
  DEGRADED (health issue ``InsufficientNumberOfReplicas``) until the cluster has a Ready node that can
  host its replicas, seen through ``set_node_reader``; DaemonSet-only add-ons are ACTIVE with no nodes;
* Kubernetes versions and add-on versions come from one catalogue (``KUBERNETES_VERSIONS``,
  ``ADDON_CATALOG``): CreateCluster, CreateAddon and UpdateAddon refuse what it does not offer for the
  cluster's version, and DescribeAddonVersions serves it per Kubernetes version.

The cluster ``endpoint`` comes from ``set_kube_endpoint_provider`` so each cluster can point at its own
emulated Kubernetes API server. Call ``install()`` before the first EKS request (ThreadedMotoServer
builds its EKS app from ``url_paths`` on the first request).
"""

from __future__ import annotations

import base64
import functools
import json
import re
import string
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import moto.eks.models as eks_models
import moto.eks.urls as eks_urls
from moto.core.responses import ActionResult, EmptyResult
from moto.eks.exceptions import (
    InvalidParameterException,
    InvalidRequestException,
    ResourceInUseException,
    ResourceNotFoundException,
)
from moto.eks.models import EKSBackend, validate_safe_to_delete
from moto.eks.responses import EKSResponse
from moto.moto_api import state_manager
from moto.moto_api._internal import mock_random
from moto.moto_api._internal.managed_state_model import ManagedState

from sandbox.aws import clock

# ============================================================================ configuration

CLUSTER_MODEL = "eks::cluster"
ADDON_MODEL = "eks::addon"

_durations = {"cluster_create": 600.0, "cluster_delete": 120.0, "addon": 60.0, "addon_delete": 30.0}
_endpoint_provider: Callable[[str, str], str] | None = None
_node_reader: Callable[[str], list[dict[str, Any]]] | None = None
_lock = threading.RLock()

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


def set_node_reader(reader: Callable[[str], list[dict[str, Any]]] | None) -> None:
    """Use ``reader(cluster_name) -> Node objects`` to see the cluster's Kubernetes Nodes (None: no nodes).

    Add-on health follows its workloads, and a Deployment's replicas need a node to run on.
    """
    global _node_reader
    _node_reader = reader


def _nodes(cluster_name: str) -> list[dict[str, Any]]:
    reader = _node_reader
    if reader is None:
        return []
    try:
        return list(reader(cluster_name))
    except KeyError:  # no Kubernetes API server for the cluster (yet): it has no nodes
        return []


# Tolerations the EKS add-ons' Deployments carry (coredns: CriticalAddonsOnly and the control-plane taint).
_ADDON_TOLERATED_TAINTS = {"CriticalAddonsOnly", "node-role.kubernetes.io/control-plane"}


def _can_host(node: dict[str, Any]) -> bool:
    """Whether the scheduler would place an add-on's replica on ``node``: it is Ready, not cordoned, and
    carries no NoSchedule/NoExecute taint the replica does not tolerate
    (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)."""
    spec, status = node.get("spec") or {}, node.get("status") or {}
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
    if not ready or spec.get("unschedulable"):
        return False
    return all(
        t.get("effect") not in ("NoSchedule", "NoExecute") or t.get("key") in _ADDON_TOLERATED_TAINTS
        for t in spec.get("taints") or []
    )


def set_kube_endpoint_provider(provider: Callable[[str, str], str] | None) -> None:
    """Use ``provider(cluster_name, kubernetes_version) -> url`` as each new cluster's ``endpoint`` (None
    restores moto's), so its API server reports the cluster's version."""
    global _endpoint_provider
    _endpoint_provider = provider


def set_cluster_creation_seconds(sim_seconds: float) -> None:
    """How long a new cluster stays CREATING, in simulated seconds (default 600)."""
    _durations["cluster_create"] = float(sim_seconds)
    register_transitions()


def set_cluster_deletion_seconds(sim_seconds: float) -> None:
    """How long a deleted cluster stays DELETING before it is gone, in simulated seconds (default 120)."""
    _durations["cluster_delete"] = float(sim_seconds)


def set_addon_transition_seconds(sim_seconds: float) -> None:
    """How long an add-on stays CREATING or UPDATING, in simulated seconds (default 60)."""
    _durations["addon"] = float(sim_seconds)
    register_transitions()


def register_transitions() -> None:
    """(Re)register the time-based defaults at the current time scale; user overrides still win."""
    state_manager.register_default_transition(
        CLUSTER_MODEL, {"progression": "time", "seconds": clock.real_seconds(_durations["cluster_create"])}
    )
    state_manager.register_default_transition(
        ADDON_MODEL, {"progression": "time", "seconds": clock.real_seconds(_durations["addon"])}
    )


# ============================================================================ helpers


def _now() -> datetime:
    return datetime.now(UTC)


def _random_id(length: int, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    return "".join(mock_random.choice(alphabet) for _ in range(length))


@functools.cache
def _certificate_authority_data() -> str:
    """Base64 of a PEM CA certificate, like EKS returns; one self-signed EC cert per process."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
        now = datetime.now(UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now.replace(year=now.year + 10))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256())
        )
        pem = cert.public_bytes(serialization.Encoding.PEM)
    except ImportError:  # cryptography ships with moto; keep a well-formed stand-in regardless
        pem = b"-----BEGIN CERTIFICATE-----\nc2FuZGJveA==\n-----END CERTIFICATE-----\n"
    return base64.b64encode(pem).decode()


def _not_found(message: str, cluster: str | None = None, addon: str | None = None) -> ResourceNotFoundException:
    return ResourceNotFoundException(
        clusterName=cluster, nodegroupName=None, fargateProfileName=None, addonName=addon, message=message
    )


def _in_use(message: str, cluster: str | None = None, addon: str | None = None) -> ResourceInUseException:
    return ResourceInUseException(clusterName=cluster, nodegroupName=None, addonName=addon, message=message)


def _paginate(items: list[Any], max_results: Any, next_token: Any) -> tuple[list[Any], str | None]:
    start = int(next_token) if next_token not in (None, "") and str(next_token).isdigit() else 0
    size = int(max_results) if max_results not in (None, "") else 100
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


@functools.cache
def _partitions() -> frozenset[str]:
    import boto3

    return frozenset(boto3.Session().get_available_partitions())


_ROLE_ARN = re.compile(r"arn:(?P<partition>[^:]+):iam::[0-9]{12}:role/.+")


def validate_role_arn(arn: str | None) -> None:
    """moto's role ARN check, without building a boto3 Session (~1 s) on every call."""
    match = _ROLE_ARN.match(arn or "")
    if not match or match["partition"] not in _partitions():
        raise InvalidParameterException(message=f"Invalid Role Arn: '{arn}'")


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


# ============================================================================ models


_MotoCluster = eks_models.Cluster  # kept: install() swaps the module global for SandboxCluster


class SandboxCluster(ManagedState, _MotoCluster):
    """moto's Cluster with a CREATING -> ACTIVE lifecycle and the fields moto drops."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _MotoCluster.__init__(self, *args, **kwargs)
        # After Cluster.__init__, which assigns status=ACTIVE through ManagedState's setter.
        ManagedState.__init__(self, CLUSTER_MODEL, [("CREATING", "ACTIVE"), ("UPDATING", "ACTIVE")])
        region = kwargs["region_name"]
        self.version = kwargs.get("version") or DEFAULT_KUBERNETES_VERSION
        self.platformVersion = DEFAULT_PLATFORM_VERSION
        # moto shares one issuer id between all clusters; EKS issues one per cluster.
        self.identity = {"oidc": {"issuer": f"https://oidc.eks.{region}.amazonaws.com/id/{uuid.uuid4().hex.upper()}"}}
        self.certificate_authority = {"data": _certificate_authority_data()}
        self.health = {"issues": []}
        self.access_config: dict[str, Any] = {
            "bootstrapClusterCreatorAdminPermissions": True,
            "authenticationMode": "CONFIG_MAP",
        }
        self.upgrade_policy = {"supportType": "EXTENDED"}
        self.deletion_protection = False
        self.addons: dict[str, Addon] = {}
        self.access_entries: dict[str, AccessEntry] = {}
        self.pod_identity_associations: dict[str, PodIdentityAssociation] = {}
        self.updates: dict[str, Update] = {}
        self.gone_at: float | None = None  # monotonic deadline once DELETING

    @property
    def authentication_mode(self) -> str:
        return self.access_config["authenticationMode"]

    def start_update(self) -> None:
        # UPDATING -> ACTIVE uses the cluster transition (600 simulated seconds, like an upgrade).
        self.status = "UPDATING"
        self._time_progressed = datetime.now()  # ManagedState's clock for the 'time' progression


class Addon(ManagedState):
    """An EKS add-on: CREATING/UPDATING -> ACTIVE on the 'eks::addon' transition, DELETING -> gone."""

    def __init__(
        self,
        cluster: SandboxCluster,
        name: str,
        version: str | None,
        role_arn: str | None,
        configuration_values: str | None,
        tags: dict[str, str] | None,
        namespace: str | None,
    ) -> None:
        super().__init__(ADDON_MODEL, [("CREATING", "ACTIVE"), ("UPDATING", "ACTIVE")])
        catalog = ADDON_CATALOG[name]
        self.cluster_name = cluster.name
        self.addon_name = name
        self.addon_version = version or default_addon_version(name, cluster.version) or ""
        self.workloads: tuple[Workload, ...] = catalog["workloads"]
        self.requires: tuple[str, ...] = catalog.get("requires", ())
        self._cluster = cluster
        self.service_account_role_arn = role_arn
        self.configuration_values = configuration_values
        self.tags = tags or {}
        self.namespace = namespace or catalog["namespace"]
        self.publisher = catalog["publisher"]
        self.owner = catalog["owner"]
        self.arn = cluster.arn.replace(":cluster/", ":addon/", 1) + f"/{name}/{uuid.uuid4()}"
        self.pod_identity_association_arns: list[str] = []
        self.created_at = self.modified_at = _now()
        self.gone_at: float | None = None

    def start_update(self) -> None:
        self.status = "UPDATING"
        self._time_progressed = datetime.now()  # ManagedState's clock for the 'time' progression
        self.modified_at = _now()

    def health(self, nodes: list[dict[str, Any]] | None = None) -> tuple[str | None, list[dict[str, Any]]]:
        """The status EKS reports and its health issues, from the add-on's workloads.

        Once rolled out, EKS keeps checking the add-on's Kubernetes resources: DaemonSets are complete
        with zero nodes (one pod per node), but a Deployment whose replicas have no node to run on
        leaves the add-on DEGRADED with the health issue InsufficientNumberOfReplicas, "The add-on is
        unhealthy because it doesn't have the desired number of replicas." (AddonIssue codes:
        https://docs.aws.amazon.com/eks/latest/APIReference/API_AddonIssue.html; coredns on a cluster
        without nodes, e.g. https://github.com/aws/containers-roadmap/issues/2328 and
        https://github.com/pulumi/pulumi-eks/issues/1819). It turns ACTIVE once nodes can host them.
        ``nodes`` are the cluster's Nodes when the caller already holds them (on the emulator's own loop,
        which the node reader would wait on).
        """
        status = self.status
        if status != "ACTIVE":
            return status, []
        found = self._missing_requirements()
        if not any(kind == "Deployment" for kind, _ in self.workloads) or any(
            _can_host(node) for node in (_nodes(self.cluster_name) if nodes is None else nodes)
        ):
            return ("DEGRADED", found) if found else (status, [])
        issue = {
            "code": "InsufficientNumberOfReplicas",
            "message": "The add-on is unhealthy because it doesn't have the desired number of replicas.",
        }
        return "DEGRADED", [issue, *found]

    def _missing_requirements(self) -> list[dict[str, Any]]:
        """A required add-on that is not ACTIVE leaves this one's resources unservable: the training
        operator's Certificate and Issuer (cert-manager.io/v1) have no CRD and its webhook no serving
        certificate. The issue code is EKS's K8sResourceNotFound; the wording is ours (AWS documents none)."""
        issues = []
        for name in self.requires:
            other = self._cluster.addons.get(name)
            state = other.health()[0] if other is not None and not _expired(other.gone_at) else None
            if state != "ACTIVE":
                issues.append(
                    {
                        "code": "K8sResourceNotFound",
                        "message": f"{self.addon_name} needs the {name} add-on ACTIVE (it is "
                        f"{state or 'not installed'}): the server could not find the requested resource "
                        "(Certificate.cert-manager.io/v1).",
                    }
                )
        return issues

    def to_dict(self) -> dict[str, Any]:
        status, issues = self.health()
        out: dict[str, Any] = {
            "addonName": self.addon_name,
            "clusterName": self.cluster_name,
            "status": status,
            "addonVersion": self.addon_version,
            "health": {"issues": issues},
            "addonArn": self.arn,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "tags": self.tags,
            "publisher": self.publisher,
            "owner": self.owner,
            "podIdentityAssociations": list(self.pod_identity_association_arns),
            "namespaceConfig": {"namespace": self.namespace},
        }
        if self.service_account_role_arn:
            out["serviceAccountRoleArn"] = self.service_account_role_arn
        if self.configuration_values:
            out["configurationValues"] = self.configuration_values
        return out


class Update:
    """An EKS update record; InProgress until the updated cluster or add-on is ACTIVE again."""

    def __init__(self, update_type: str, params: list[dict[str, str]], target: Any = None) -> None:
        self.id = str(uuid.uuid4())
        self.type = update_type
        self.params = params
        self.target = target  # a SandboxCluster or an Addon
        self.created_at = _now()

    def to_dict(self) -> dict[str, Any]:
        done = self.target is None or self.target.status == "ACTIVE"
        return {
            "id": self.id,
            "status": "Successful" if done else "InProgress",
            "type": self.type,
            "params": self.params,
            "createdAt": self.created_at,
            "errors": [],
        }


class AccessEntry:
    """An access entry with its associated access policies (keyed by policy ARN)."""

    def __init__(
        self,
        cluster: SandboxCluster,
        principal_arn: str,
        entry_type: str,
        kubernetes_groups: list[str] | None,
        username: str | None,
        tags: dict[str, str] | None,
    ) -> None:
        match = re.match(
            r"arn:(?P<partition>[^:]+):iam::(?P<account>\d{12}):(?P<kind>role|user)/(?:.*/)?(?P<name>[^/]+)$",
            principal_arn,
        )
        assert match  # validated by the caller
        self.cluster_name = cluster.name
        self.principal_arn = principal_arn
        self.type = entry_type
        self.kubernetes_groups = list(kubernetes_groups or [])
        self.username = username or _default_username(match, entry_type)
        self.tags = tags or {}
        region, account = cluster.arn.split(":")[3], cluster.arn.split(":")[4]
        self.arn = (
            f"arn:{match['partition']}:eks:{region}:{account}:access-entry/{cluster.name}/"
            f"{match['kind']}/{match['account']}/{match['name']}/{uuid.uuid4().hex[:32]}"
        )
        self.created_at = self.modified_at = _now()
        self.policies: dict[str, dict[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "clusterName": self.cluster_name,
            "principalArn": self.principal_arn,
            "kubernetesGroups": self.kubernetes_groups,
            "accessEntryArn": self.arn,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "tags": self.tags,
            "username": self.username,
            "type": self.type,
        }


def _default_username(match: re.Match[str], entry_type: str) -> str:
    # The usernames EKS generates when none is given.
    if entry_type in ("EC2_LINUX", "EC2_WINDOWS", "EC2", "HYBRID_LINUX"):
        return "system:node:{{EC2PrivateDNSName}}"
    if entry_type == "HYPERPOD_LINUX":
        return "system:node:{{SessionName}}"
    if entry_type == "FARGATE_LINUX":
        return "system:node:{{SessionName}}"
    if match["kind"] == "role":
        sts_role = f"arn:{match['partition']}:sts::{match['account']}:assumed-role/{match['name']}"
        return sts_role + "/{{SessionName}}"
    return match.string


class PodIdentityAssociation:
    """An EKS Pod Identity association (namespace + service account -> IAM role)."""

    def __init__(
        self,
        cluster: SandboxCluster,
        namespace: str,
        service_account: str,
        role_arn: str,
        tags: dict[str, str] | None,
        disable_session_tags: bool | None,
        target_role_arn: str | None,
        policy: str | None,
        owner_arn: str | None = None,
    ) -> None:
        self.cluster_name = cluster.name
        self.namespace = namespace
        self.service_account = service_account
        self.role_arn = role_arn
        self.association_id = "a-" + _random_id(17)
        self.association_arn = (
            cluster.arn.replace(":cluster/", ":podidentityassociation/", 1) + f"/{self.association_id}"
        )
        self.tags = tags or {}
        self.disable_session_tags = bool(disable_session_tags)
        self.target_role_arn = target_role_arn
        self.external_id = str(uuid.uuid4()) if target_role_arn else None
        self.policy = policy
        self.owner_arn = owner_arn
        self.created_at = self.modified_at = _now()

    def summary(self) -> dict[str, Any]:
        out = {
            "clusterName": self.cluster_name,
            "namespace": self.namespace,
            "serviceAccount": self.service_account,
            "associationArn": self.association_arn,
            "associationId": self.association_id,
        }
        if self.owner_arn:
            out["ownerArn"] = self.owner_arn
        return out

    def to_dict(self) -> dict[str, Any]:
        out = {
            **self.summary(),
            "roleArn": self.role_arn,
            "tags": self.tags,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "disableSessionTags": self.disable_session_tags,
        }
        for key, value in (
            ("targetRoleArn", self.target_role_arn),
            ("externalId", self.external_id),
            ("policy", self.policy),
        ):
            if value:
                out[key] = value
        return out


# ============================================================================ backend operations


def _reap(backend: EKSBackend) -> None:
    """Drop clusters and add-ons whose DELETING period has run out."""
    with _lock:
        for name, cluster in list(backend.clusters.items()):
            if _expired(getattr(cluster, "gone_at", None)):
                backend.clusters.pop(name, None)
                backend.cluster_count -= 1
                continue
            for addon_name, addon in list(getattr(cluster, "addons", {}).items()):
                if _expired(addon.gone_at):
                    cluster.addons.pop(addon_name, None)


def _cluster(backend: EKSBackend, name: str) -> SandboxCluster:
    _reap(backend)
    cluster = backend.clusters.get(name)
    if cluster is None:
        raise _not_found(f"No cluster found for name: {name}.", cluster=name)
    return cluster  # type: ignore[return-value]


def find_cluster(name: str) -> SandboxCluster | None:
    """The cluster of that name in any account and region (the fleet keys API servers by name)."""
    for account in list(eks_models.eks_backends):
        for backend in list(eks_models.eks_backends[account].values()):
            cluster = backend.clusters.get(name)
            if cluster is not None:
                return cluster  # type: ignore[no-any-return]
    return None


def _require_active(cluster: SandboxCluster) -> None:
    if cluster.status != "ACTIVE":
        raise InvalidRequestException(message=f"Cluster is in {cluster.status} state")


def _require_api_authentication(cluster: SandboxCluster) -> None:
    if cluster.authentication_mode not in ("API", "API_AND_CONFIG_MAP"):
        raise InvalidRequestException(
            message="The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] "
            "to perform this operation."
        )


_original_create_cluster = EKSBackend.create_cluster
_original_describe_cluster = EKSBackend.describe_cluster
_original_list_clusters = EKSBackend.list_clusters


def create_cluster(
    self: EKSBackend,
    *args: Any,
    access_config: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    **kwargs: Any,
) -> SandboxCluster:
    _reap(self)
    version = kwargs.get("version")
    if version and version not in KUBERNETES_VERSIONS:
        # EKS creates clusters only at the versions of its release calendar (KUBERNETES_VERSIONS).
        raise InvalidParameterException(
            message=f"unsupported Kubernetes version {version}; supported: {', '.join(KUBERNETES_VERSIONS)}"
        )
    cluster: SandboxCluster = _original_create_cluster(self, *args, **kwargs)  # type: ignore[assignment]
    # EKS defaults: API_AND_CONFIG_MAP when accessConfig is sent without a mode, CONFIG_MAP without it.
    if access_config is not None:
        cluster.access_config = {
            "bootstrapClusterCreatorAdminPermissions": access_config.get(
                "bootstrapClusterCreatorAdminPermissions", True
            ),
            "authenticationMode": access_config.get("authenticationMode") or "API_AND_CONFIG_MAP",
        }
    for key, value in (extra or {}).items():
        if value is not None:
            setattr(cluster, key, value)
    _complete_network_config(self, cluster)
    # Start the CREATING clock when the cluster is complete, not before the EC2 lookups above.
    cluster._time_progressed = datetime.now()
    if _endpoint_provider is not None:
        cluster.endpoint = _endpoint_provider(cluster.name, cluster.version)
    return cluster


def _complete_network_config(backend: EKSBackend, cluster: SandboxCluster) -> None:
    """Fill what EKS adds to the VPC config: defaults, the VPC id and the cluster security group.

    When the subnets exist in moto's EC2 backend the cluster security group is created there for real
    (EKS creates it in the cluster's VPC), so code that adds rules to it finds it with EC2 calls.
    Unknown subnets are tolerated and get a made-up group id.
    """
    vpc_config = {
        "endpointPublicAccess": True,
        "endpointPrivateAccess": False,
        "publicAccessCidrs": ["0.0.0.0/0"],
        **(cluster.resources_vpc_config or {}),
    }
    cluster.kubernetes_network_config = {"ipFamily": "ipv4", **(cluster.kubernetes_network_config or {})}
    vpc_id = None
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[backend.account_id][backend.region_name]
        subnet_ids = vpc_config.get("subnetIds") or []
        if subnet_ids:
            vpc_id = ec2.get_subnet(subnet_ids[0]).vpc_id
    except Exception:
        ec2 = None
    if vpc_id and ec2 is not None:
        group = ec2.create_security_group(
            name=f"eks-cluster-sg-{cluster.name}-{_random_id(10, string.digits)}",
            description="EKS created security group applied to ENI that is attached to EKS Control Plane "
            "master nodes, as well as any managed workloads.",
            vpc_id=vpc_id,
            tags={f"kubernetes.io/cluster/{cluster.name}": "owned", "aws:eks:cluster-name": cluster.name},
        )
        # EKS's cluster security group: all inbound traffic from itself, all outbound (CreateSecurityGroup's
        # default) (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).
        ec2.authorize_security_group_ingress(
            group.id, "-1", None, None, [], source_groups=[{"GroupId": group.id}], vpc_id=vpc_id
        )
        vpc_config.update(vpcId=vpc_id, clusterSecurityGroupId=group.id)
    else:
        vpc_config.setdefault("clusterSecurityGroupId", "sg-" + _random_id(17, "0123456789abcdef"))
    cluster.resources_vpc_config = vpc_config


def describe_cluster(self: EKSBackend, name: str) -> SandboxCluster:
    return _cluster(self, name)


def list_clusters(self: EKSBackend, max_results: int, next_token: str | None) -> Any:
    _reap(self)
    return _original_list_clusters(self, max_results, next_token)


def delete_cluster(self: EKSBackend, name: str) -> SandboxCluster:
    cluster = _cluster(self, name)
    with _lock:
        if cluster.gone_at is not None:
            return cluster  # already DELETING: answer like a repeated request, don't restart the clock
        validate_safe_to_delete(cluster)
        if cluster.deletion_protection:
            raise InvalidRequestException(
                message=f"Cluster {name} has deletion protection enabled. Disable it with "
                "UpdateClusterConfig before deleting the cluster."
            )
        cluster.status = "DELETING"
        cluster.gone_at = time.monotonic() + clock.real_seconds(_durations["cluster_delete"])
        # EKS removes the cluster's add-ons, access entries and pod identity associations with it.
        cluster.addons.clear()
        cluster.access_entries.clear()
        cluster.pod_identity_associations.clear()
    return cluster


_AUTHENTICATION_MODE_ORDER = ["CONFIG_MAP", "API_AND_CONFIG_MAP", "API"]


def update_cluster_config(backend: EKSBackend, name: str, body: dict[str, Any]) -> Update:
    """UpdateClusterConfig: one update per call, as EKS only accepts one kind of change at a time."""
    cluster = _cluster(backend, name)
    with _lock:
        _require_no_update_in_progress(cluster)
        params: list[dict[str, str]] = []
        update_type = "ConfigUpdate"
        if body.get("accessConfig"):
            mode = body["accessConfig"].get("authenticationMode")
            current = cluster.authentication_mode
            # EKS only moves towards API: CONFIG_MAP -> API_AND_CONFIG_MAP -> API, never back.
            if mode not in _AUTHENTICATION_MODE_ORDER or (
                _AUTHENTICATION_MODE_ORDER.index(mode) < _AUTHENTICATION_MODE_ORDER.index(current)
            ):
                raise InvalidParameterException(
                    message=f"Unsupported authentication mode update from {current} to {mode}"
                )
            cluster.access_config = {**cluster.access_config, "authenticationMode": mode}
            update_type = "AccessConfigUpdate"
            params.append({"type": "AuthenticationMode", "value": json.dumps(mode)})
        if body.get("logging"):
            cluster.logging = body["logging"]
            update_type = "LoggingUpdate"
            params.append({"type": "ClusterLogging", "value": json.dumps(body["logging"])})
        if body.get("resourcesVpcConfig"):
            cluster.resources_vpc_config = {
                **(cluster.resources_vpc_config or {}),
                **body["resourcesVpcConfig"],
            }
            update_type = "EndpointAccessUpdate"
            for key, kind in (
                ("endpointPublicAccess", "EndpointPublicAccess"),
                ("endpointPrivateAccess", "EndpointPrivateAccess"),
                ("publicAccessCidrs", "PublicAccessCidrs"),
            ):
                if key in body["resourcesVpcConfig"]:
                    params.append({"type": kind, "value": json.dumps(body["resourcesVpcConfig"][key])})
        if body.get("upgradePolicy"):
            cluster.upgrade_policy = body["upgradePolicy"]
            update_type = "UpgradePolicyUpdate"
            params.append({"type": "UpgradePolicy", "value": json.dumps(body["upgradePolicy"])})
        if body.get("deletionProtection") is not None:
            cluster.deletion_protection = bool(body["deletionProtection"])
            update_type = "DeletionProtectionUpdate"
            params.append({"type": "DeletionProtection", "value": json.dumps(cluster.deletion_protection)})
        if not params:
            raise InvalidParameterException(message="No changes needed for the cluster configuration")
        cluster.start_update()
        update = Update(update_type, params, cluster)
        cluster.updates[update.id] = update
        return update


def update_cluster_version(backend: EKSBackend, name: str, version: str) -> Update:
    cluster = _cluster(backend, name)
    with _lock:
        _require_no_update_in_progress(cluster)
        if version not in KUBERNETES_VERSIONS:
            raise InvalidParameterException(message=f"unsupported Kubernetes version {version}")
        current_minor, wanted_minor = (int(v.split(".")[1]) for v in (cluster.version, version))
        if wanted_minor != current_minor + 1:
            raise InvalidParameterException(
                message=f"Unsupported Kubernetes minor version update from {cluster.version} to {version}"
            )
        cluster.version = version
        cluster.start_update()
        update = Update(
            "VersionUpdate",
            [
                {"type": "Version", "value": version},
                {"type": "PlatformVersion", "value": DEFAULT_PLATFORM_VERSION},
            ],
            cluster,
        )
        cluster.updates[update.id] = update
        return update


def _require_no_update_in_progress(cluster: SandboxCluster) -> None:
    status = cluster.status
    if status == "UPDATING":
        raise _in_use("Cluster has an update in progress", cluster=cluster.name)
    _require_active(cluster)


def _validate_configuration_values(value: str | None) -> None:
    if not value:
        return
    try:
        json.loads(value)
        return
    except ValueError:
        pass
    try:
        import yaml

        if isinstance(yaml.safe_load(value), dict):
            return
    except Exception:
        pass
    raise InvalidParameterException(
        message="ConfigurationValue provided in request is not supported: Json schema validation failed"
    )


def _addon(cluster: SandboxCluster, name: str) -> Addon:
    addon = cluster.addons.get(name)
    if addon is None or _expired(addon.gone_at):
        raise _not_found(f"No addon: {name} found in cluster: {cluster.name}", cluster=cluster.name, addon=name)
    return addon


def _associate_for_addon(cluster: SandboxCluster, addon: Addon, associations: list[dict[str, str]] | None) -> None:
    for item in associations or []:
        validate_role_arn(item["roleArn"])
        _check_association_free(cluster, addon.namespace, item["serviceAccount"])
    for item in associations or []:
        association = PodIdentityAssociation(
            cluster,
            addon.namespace,
            item["serviceAccount"],
            item["roleArn"],
            None,
            None,
            None,
            None,
            owner_arn=addon.arn,
        )
        cluster.pod_identity_associations[association.association_id] = association
        addon.pod_identity_association_arns.append(association.association_arn)


def _drop_addon_associations(cluster: SandboxCluster, addon: Addon) -> None:
    for association_id, association in list(cluster.pod_identity_associations.items()):
        if association.owner_arn == addon.arn:
            del cluster.pod_identity_associations[association_id]
    addon.pod_identity_association_arns.clear()


def _check_addon_version(cluster: SandboxCluster, addon_name: str, addon_version: str | None) -> None:
    """CreateAddon/UpdateAddon accept only a version DescribeAddonVersions lists for the cluster's
    Kubernetes version; anything else is EKS's InvalidParameterException "Addon version specified is
    not supported" (e.g. https://github.com/hashicorp/terraform-provider-aws/issues/32238)."""
    if addon_version and addon_version not in addon_versions(addon_name, cluster.version):
        raise InvalidParameterException(message="Addon version specified is not supported")
    if not addon_version and default_addon_version(addon_name, cluster.version) is None:
        raise InvalidParameterException(
            message=f"Addon {addon_name} specified is not supported in {cluster.version} cluster version"
        )


def create_addon(
    backend: EKSBackend,
    cluster_name: str,
    addon_name: str,
    addon_version: str | None = None,
    role_arn: str | None = None,
    configuration_values: str | None = None,
    tags: dict[str, str] | None = None,
    pod_identity_associations: list[dict[str, str]] | None = None,
    namespace: str | None = None,
) -> Addon:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        existing = cluster.addons.get(addon_name)
        if existing is not None and not _expired(existing.gone_at):
            raise _in_use(f"Addon already exists: {addon_name}", cluster=cluster_name, addon=addon_name)
        _require_active(cluster)
        if addon_name not in ADDON_CATALOG:
            raise InvalidParameterException(
                message=f"Addon {addon_name} specified is not supported in {cluster.version} cluster version"
            )
        _check_addon_version(cluster, addon_name, addon_version)
        if role_arn:
            validate_role_arn(role_arn)
        _validate_configuration_values(configuration_values)
        addon = Addon(cluster, addon_name, addon_version, role_arn, configuration_values, tags, namespace)
        _associate_for_addon(cluster, addon, pod_identity_associations)
        cluster.addons[addon_name] = addon
        return addon


def update_addon(
    backend: EKSBackend,
    cluster_name: str,
    addon_name: str,
    addon_version: str | None = None,
    role_arn: str | None = None,
    configuration_values: str | None = None,
    pod_identity_associations: list[dict[str, str]] | None = None,
    resolve_conflicts: str | None = None,
) -> Update:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        addon = _addon(cluster, addon_name)
        if addon.status in ("CREATING", "UPDATING", "DELETING"):
            raise _in_use(
                f"Addon {addon_name} is in {addon.status} state and cannot be updated",
                cluster=cluster_name,
                addon=addon_name,
            )
        params: list[dict[str, str]] = []
        if addon_version:
            _check_addon_version(cluster, addon_name, addon_version)
            addon.addon_version = addon_version
            params.append({"type": "AddonVersion", "value": addon_version})
        if role_arn is not None:
            if role_arn:
                validate_role_arn(role_arn)
            addon.service_account_role_arn = role_arn or None
            params.append({"type": "ServiceAccountRoleArn", "value": role_arn})
        if configuration_values is not None:
            _validate_configuration_values(configuration_values)
            addon.configuration_values = configuration_values or None
            params.append({"type": "ConfigurationValues", "value": configuration_values})
        if pod_identity_associations is not None:
            _drop_addon_associations(cluster, addon)
            _associate_for_addon(cluster, addon, pod_identity_associations)
            params.append({"type": "PodIdentityAssociations", "value": json.dumps(addon.pod_identity_association_arns)})
        if resolve_conflicts:
            params.append({"type": "ResolveConflicts", "value": resolve_conflicts})
        addon.start_update()
        update = Update("AddonUpdate", params, addon)
        cluster.updates[update.id] = update
        return update


def delete_addon(backend: EKSBackend, cluster_name: str, addon_name: str) -> Addon:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        addon = _addon(cluster, addon_name)
        if addon.gone_at is None:
            addon.status = "DELETING"
            addon.gone_at = time.monotonic() + clock.real_seconds(_durations["addon_delete"])
            _drop_addon_associations(cluster, addon)
        return addon


_PRINCIPAL_ARN = re.compile(r"arn:[^:]+:iam::\d{12}:(role|user)/.+")


def _access_entry(cluster: SandboxCluster, principal_arn: str) -> AccessEntry:
    entry = cluster.access_entries.get(principal_arn)
    if entry is None:
        raise _not_found(
            "The specified principalArn could not be found. You can view your available access entries "
            "with 'list-access-entries'.",
            cluster=cluster.name,
        )
    return entry


def create_access_entry(
    backend: EKSBackend,
    cluster_name: str,
    principal_arn: str,
    entry_type: str | None,
    kubernetes_groups: list[str] | None,
    username: str | None,
    tags: dict[str, str] | None,
) -> AccessEntry:
    cluster = _cluster(backend, cluster_name)
    entry_type = entry_type or "STANDARD"
    with _lock:
        _require_api_authentication(cluster)
        if not _PRINCIPAL_ARN.fullmatch(principal_arn or ""):
            raise InvalidParameterException(message=f"The specified principalArn is invalid: {principal_arn}")
        if entry_type not in ACCESS_ENTRY_TYPES:
            raise InvalidParameterException(message=f"The specified access entry type is invalid: {entry_type}")
        if entry_type != "STANDARD" and (kubernetes_groups or username):
            raise InvalidParameterException(
                message=f"The kubernetesGroups and username can't be specified for access entries of type {entry_type}."
            )
        if principal_arn in cluster.access_entries:
            raise _in_use(
                "The specified access entry resource is already in use on this cluster.", cluster=cluster_name
            )
        entry = AccessEntry(cluster, principal_arn, entry_type, kubernetes_groups, username, tags)
        cluster.access_entries[principal_arn] = entry
        return entry


def update_access_entry(
    backend: EKSBackend,
    cluster_name: str,
    principal_arn: str,
    kubernetes_groups: list[str] | None,
    username: str | None,
) -> AccessEntry:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        entry = _access_entry(cluster, principal_arn)
        if kubernetes_groups is not None:
            entry.kubernetes_groups = list(kubernetes_groups)
        if username:
            entry.username = username
        entry.modified_at = _now()
        return entry


def associate_access_policy(
    backend: EKSBackend, cluster_name: str, principal_arn: str, policy_arn: str, access_scope: dict[str, Any]
) -> dict[str, Any]:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        entry = _access_entry(cluster, principal_arn)
        policy_name = policy_arn.rsplit("/", 1)[-1]
        if not re.fullmatch(r"arn:[^:]+:eks::aws:cluster-access-policy/[A-Za-z0-9]+", policy_arn or "") or (
            policy_name not in ACCESS_POLICIES
        ):
            raise ResourceNotFoundException(
                clusterName=cluster_name,
                nodegroupName=None,
                fargateProfileName=None,
                addonName=None,
                message=f"The policy {policy_arn} could not be found.",
            )
        scope_type = (access_scope or {}).get("type")
        namespaces = list((access_scope or {}).get("namespaces") or [])
        if scope_type not in ("cluster", "namespace"):
            raise InvalidParameterException(message="accessScope.type must be one of [cluster, namespace]")
        if scope_type == "namespace" and not namespaces:
            raise InvalidParameterException(
                message="Namespaces must be specified when the access scope type is namespace"
            )
        if scope_type == "cluster" and namespaces:
            raise InvalidParameterException(
                message="Namespaces can't be specified when the access scope type is cluster"
            )
        now = _now()
        previous = entry.policies.get(policy_arn)
        entry.policies[policy_arn] = {
            "policyArn": policy_arn,
            "accessScope": {"type": scope_type, "namespaces": namespaces},
            "associatedAt": previous["associatedAt"] if previous else now,
            "modifiedAt": now,
        }
        return entry.policies[policy_arn]


def create_pod_identity_association(
    backend: EKSBackend,
    cluster_name: str,
    namespace: str,
    service_account: str,
    role_arn: str,
    tags: dict[str, str] | None,
    disable_session_tags: bool | None,
    target_role_arn: str | None,
    policy: str | None,
) -> PodIdentityAssociation:
    cluster = _cluster(backend, cluster_name)
    with _lock:
        validate_role_arn(role_arn)
        if target_role_arn:
            validate_role_arn(target_role_arn)
        _check_association_free(cluster, namespace, service_account)
        association = PodIdentityAssociation(
            cluster, namespace, service_account, role_arn, tags, disable_session_tags, target_role_arn, policy
        )
        cluster.pod_identity_associations[association.association_id] = association
        return association


def _check_association_free(cluster: SandboxCluster, namespace: str, service_account: str) -> None:
    for association in cluster.pod_identity_associations.values():
        if (association.namespace, association.service_account) == (namespace, service_account):
            raise _in_use(
                f"Association already exists: {association.association_id} for namespace {namespace} and "
                f"service account {service_account}",
                cluster=cluster.name,
            )


def _association(cluster: SandboxCluster, association_id: str) -> PodIdentityAssociation:
    association = cluster.pod_identity_associations.get(association_id)
    if association is None:
        raise _not_found(f"Association not found: {association_id}", cluster=cluster.name)
    return association


# ============================================================================ response methods


def _body(self: EKSResponse) -> dict[str, Any]:
    try:
        return json.loads(self.body or "{}")
    except ValueError:
        return {}


def _uri(self: EKSResponse, name: str) -> str:
    from urllib.parse import unquote

    # moto's router hands path parameters over still percent-encoded (principal and policy ARNs have '/').
    return unquote(self.uri_match[name])


def _query(self: EKSResponse, name: str) -> Any:
    values = self.querystring.get(name)
    return values[0] if isinstance(values, list) and values else None


def _r_create_cluster(self: EKSResponse) -> ActionResult:
    body = _body(self)
    cluster = self.eks_backend.create_cluster(
        name=body.get("name"),
        version=body.get("version"),
        role_arn=body.get("roleArn"),
        resources_vpc_config=body.get("resourcesVpcConfig"),
        kubernetes_network_config=body.get("kubernetesNetworkConfig"),
        logging=body.get("logging"),
        client_request_token=body.get("clientRequestToken"),
        tags=body.get("tags"),
        encryption_config=body.get("encryptionConfig"),
        remote_network_config=body.get("remoteNetworkConfig"),
        access_config=body.get("accessConfig"),
        extra={
            "upgrade_policy": body.get("upgradePolicy"),
            "zonal_shift_config": body.get("zonalShiftConfig"),
            "compute_config": body.get("computeConfig"),
            "storage_config": body.get("storageConfig"),
            "deletion_protection": body.get("deletionProtection"),
        },
    )
    return ActionResult({"cluster": cluster})


def _r_update_cluster_config(self: EKSResponse) -> ActionResult:
    return ActionResult({"update": update_cluster_config(self.eks_backend, _uri(self, "name"), _body(self)).to_dict()})


def _r_update_cluster_version(self: EKSResponse) -> ActionResult:
    update = update_cluster_version(self.eks_backend, _uri(self, "name"), _body(self).get("version", ""))
    return ActionResult({"update": update.to_dict()})


def _r_create_addon(self: EKSResponse) -> ActionResult:
    body = _body(self)
    addon = create_addon(
        self.eks_backend,
        _uri(self, "name"),
        body.get("addonName"),
        body.get("addonVersion"),
        body.get("serviceAccountRoleArn"),
        body.get("configurationValues"),
        body.get("tags"),
        body.get("podIdentityAssociations"),
        (body.get("namespaceConfig") or {}).get("namespace"),
    )
    return ActionResult({"addon": addon.to_dict()})


def _r_describe_addon(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"addon": _addon(cluster, _uri(self, "addonName")).to_dict()})


def _r_list_addons(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    names = sorted(n for n, a in cluster.addons.items() if not _expired(a.gone_at))
    page, token = _paginate(names, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"addons": page, "nextToken": token})


def _r_update_addon(self: EKSResponse) -> ActionResult:
    body = _body(self)
    update = update_addon(
        self.eks_backend,
        _uri(self, "name"),
        _uri(self, "addonName"),
        body.get("addonVersion"),
        body.get("serviceAccountRoleArn"),
        body.get("configurationValues"),
        body.get("podIdentityAssociations"),
        body.get("resolveConflicts"),
    )
    return ActionResult({"update": update.to_dict()})


def _r_delete_addon(self: EKSResponse) -> ActionResult:
    addon = delete_addon(self.eks_backend, _uri(self, "name"), _uri(self, "addonName"))
    return ActionResult({"addon": addon.to_dict()})


def _r_describe_addon_versions(self: EKSResponse) -> ActionResult:
    """One entry per add-on with the versions compatible with ``kubernetesVersion`` (every offered
    version when none is given); the first compatible version is the default."""
    wanted = _query(self, "addonName")
    kubernetes_version = _query(self, "kubernetesVersion")
    clusters = [kubernetes_version] if kubernetes_version else list(KUBERNETES_VERSIONS)
    addons = []
    for name, info in sorted(ADDON_CATALOG.items()):
        if wanted not in (None, name):
            continue
        defaults = {k: default_addon_version(name, k) for k in clusters}
        versions = [
            {
                "addonVersion": version,
                "architecture": ["amd64", "arm64"],
                "computeTypes": ["ec2"],
                "compatibilities": [
                    {"clusterVersion": k, "platformVersions": ["*"], "defaultVersion": defaults[k] == version}
                    for k in clusters
                    if k in compatible
                ],
                "requiresConfiguration": False,
                "requiresIamPermissions": info["type"] in ("storage", "observability"),
            }
            for version, compatible in info["versions"]
            if any(k in compatible for k in clusters)
        ]
        if versions:
            addons.append(
                {
                    "addonName": name,
                    "type": info["type"],
                    "publisher": info["publisher"],
                    "owner": info["owner"],
                    "defaultNamespace": info["namespace"],
                    "addonVersions": versions,
                }
            )
    page, token = _paginate(addons, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"addons": page, "nextToken": token})


def _r_describe_update(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    update = cluster.updates.get(_uri(self, "updateId"))
    if update is None:
        raise _not_found(f"No update found for ID: {_uri(self, 'updateId')}", cluster=cluster.name)
    return ActionResult({"update": update.to_dict()})


def _r_list_updates(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    addon_name = _query(self, "addonName")
    ids = [
        u.id
        for u in sorted(cluster.updates.values(), key=lambda u: u.created_at)
        if (addon_name is None and u.target is cluster)
        or (isinstance(u.target, Addon) and u.target.addon_name == addon_name)
    ]
    page, token = _paginate(ids, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"updateIds": page, "nextToken": token})


def _r_create_access_entry(self: EKSResponse) -> ActionResult:
    body = _body(self)
    entry = create_access_entry(
        self.eks_backend,
        _uri(self, "name"),
        body.get("principalArn"),
        body.get("type"),
        body.get("kubernetesGroups"),
        body.get("username"),
        body.get("tags"),
    )
    return ActionResult({"accessEntry": entry.to_dict()})


def _r_describe_access_entry(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"accessEntry": _access_entry(cluster, _uri(self, "principalArn")).to_dict()})


def _r_update_access_entry(self: EKSResponse) -> ActionResult:
    body = _body(self)
    entry = update_access_entry(
        self.eks_backend,
        _uri(self, "name"),
        _uri(self, "principalArn"),
        body.get("kubernetesGroups"),
        body.get("username"),
    )
    return ActionResult({"accessEntry": entry.to_dict()})


def _r_list_access_entries(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    _require_api_authentication(cluster)
    policy = _query(self, "associatedPolicyArn")
    arns = sorted(arn for arn, e in cluster.access_entries.items() if policy is None or policy in e.policies)
    page, token = _paginate(arns, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"accessEntries": page, "nextToken": token})


def _r_delete_access_entry(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    with _lock:
        _access_entry(cluster, _uri(self, "principalArn"))
        del cluster.access_entries[_uri(self, "principalArn")]
    return EmptyResult()


def _r_associate_access_policy(self: EKSResponse) -> ActionResult:
    body = _body(self)
    cluster_name, principal_arn = _uri(self, "name"), _uri(self, "principalArn")
    policy = associate_access_policy(
        self.eks_backend, cluster_name, principal_arn, body.get("policyArn"), body.get("accessScope")
    )
    return ActionResult({"clusterName": cluster_name, "principalArn": principal_arn, "associatedAccessPolicy": policy})


def _r_list_associated_access_policies(self: EKSResponse) -> ActionResult:
    cluster_name, principal_arn = _uri(self, "name"), _uri(self, "principalArn")
    entry = _access_entry(_cluster(self.eks_backend, cluster_name), principal_arn)
    policies = [entry.policies[arn] for arn in sorted(entry.policies)]
    page, token = _paginate(policies, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult(
        {
            "clusterName": cluster_name,
            "principalArn": principal_arn,
            "associatedAccessPolicies": page,
            "nextToken": token,
        }
    )


def _r_disassociate_access_policy(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    with _lock:
        entry = _access_entry(cluster, _uri(self, "principalArn"))
        policy_arn = _uri(self, "policyArn")
        if entry.policies.pop(policy_arn, None) is None:
            raise _not_found(f"The policy {policy_arn} is not associated with this access entry.", cluster=cluster.name)
    return EmptyResult()


def _r_list_access_policies(self: EKSResponse) -> ActionResult:
    partition = "aws-cn" if self.region.startswith("cn-") else "aws"
    policies = [{"name": n, "arn": ACCESS_POLICY_ARN.format(partition=partition, name=n)} for n in ACCESS_POLICIES]
    page, token = _paginate(policies, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"accessPolicies": page, "nextToken": token})


def _r_create_pod_identity_association(self: EKSResponse) -> ActionResult:
    body = _body(self)
    association = create_pod_identity_association(
        self.eks_backend,
        _uri(self, "name"),
        body.get("namespace"),
        body.get("serviceAccount"),
        body.get("roleArn"),
        body.get("tags"),
        body.get("disableSessionTags"),
        body.get("targetRoleArn"),
        body.get("policy"),
    )
    return ActionResult({"association": association.to_dict()})


def _r_describe_pod_identity_association(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"association": _association(cluster, _uri(self, "associationId")).to_dict()})


def _r_update_pod_identity_association(self: EKSResponse) -> ActionResult:
    body = _body(self)
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    with _lock:
        association = _association(cluster, _uri(self, "associationId"))
        if body.get("roleArn"):
            validate_role_arn(body["roleArn"])
            association.role_arn = body["roleArn"]
        if body.get("disableSessionTags") is not None:
            association.disable_session_tags = bool(body["disableSessionTags"])
        if "targetRoleArn" in body:
            association.target_role_arn = body["targetRoleArn"] or None
            association.external_id = str(uuid.uuid4()) if association.target_role_arn else None
        if "policy" in body:
            association.policy = body["policy"] or None
        association.modified_at = _now()
    return ActionResult({"association": association.to_dict()})


def _r_list_pod_identity_associations(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    namespace, service_account = _query(self, "namespace"), _query(self, "serviceAccount")
    items = [
        a.summary()
        for a in sorted(cluster.pod_identity_associations.values(), key=lambda a: a.created_at)
        if namespace in (None, a.namespace) and service_account in (None, a.service_account)
    ]
    page, token = _paginate(items, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({"associations": page, "nextToken": token})


def _r_delete_pod_identity_association(self: EKSResponse) -> ActionResult:
    cluster = _cluster(self.eks_backend, _uri(self, "name"))
    with _lock:
        association = _association(cluster, _uri(self, "associationId"))
        if association.owner_arn:
            raise InvalidRequestException(
                message=f"Association {association.association_id} is owned by {association.owner_arn} and "
                "can only be removed through its owner."
            )
        del cluster.pod_identity_associations[association.association_id]
    return ActionResult({"association": association.to_dict()})


_RESPONSE_METHODS = {
    "create_cluster": _r_create_cluster,
    "update_cluster_config": _r_update_cluster_config,
    "update_cluster_version": _r_update_cluster_version,
    "create_addon": _r_create_addon,
    "describe_addon": _r_describe_addon,
    "list_addons": _r_list_addons,
    "update_addon": _r_update_addon,
    "delete_addon": _r_delete_addon,
    "describe_addon_versions": _r_describe_addon_versions,
    "describe_update": _r_describe_update,
    "list_updates": _r_list_updates,
    "create_access_entry": _r_create_access_entry,
    "describe_access_entry": _r_describe_access_entry,
    "update_access_entry": _r_update_access_entry,
    "list_access_entries": _r_list_access_entries,
    "delete_access_entry": _r_delete_access_entry,
    "associate_access_policy": _r_associate_access_policy,
    "list_associated_access_policies": _r_list_associated_access_policies,
    "disassociate_access_policy": _r_disassociate_access_policy,
    "list_access_policies": _r_list_access_policies,
    "create_pod_identity_association": _r_create_pod_identity_association,
    "describe_pod_identity_association": _r_describe_pod_identity_association,
    "update_pod_identity_association": _r_update_pod_identity_association,
    "list_pod_identity_associations": _r_list_pod_identity_associations,
    "delete_pod_identity_association": _r_delete_pod_identity_association,
}

# Regexes only route a request to EKSResponse.dispatch; moto's router then picks the operation from
# botocore's model. Principal and policy ARNs contain '/', hence the greedy tails.
_URL_PATHS = [
    "{0}/clusters/(?P<name>[^/]+)/addons$",
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)$",
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)/update$",
    "{0}/addons/supported-versions$",
    "{0}/clusters/(?P<name>[^/]+)/updates$",
    "{0}/clusters/(?P<name>[^/]+)/updates/(?P<updateId>[^/]+)$",
    "{0}/clusters/(?P<name>[^/]+)/access-entries$",
    "{0}/clusters/(?P<name>[^/]+)/access-entries/(?P<principalArn>.+)$",
    "{0}/access-policies$",
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations$",
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations/(?P<associationId>[^/]+)$",
]

_installed = False


def install() -> None:
    """Apply the EKS extensions (idempotent); re-registers the lifecycle timings at the current scale."""
    global _installed
    with _lock:
        register_transitions()
        if _installed:
            return
        # EKSBackend.create_cluster instantiates the module global, so swapping it is enough.
        eks_models.Cluster = SandboxCluster  # type: ignore[misc]
        eks_models.validate_role_arn = validate_role_arn
        EKSBackend.create_cluster = create_cluster  # type: ignore[method-assign]
        EKSBackend.describe_cluster = describe_cluster  # type: ignore[method-assign]
        EKSBackend.list_clusters = list_clusters  # type: ignore[method-assign]
        EKSBackend.delete_cluster = delete_cluster  # type: ignore[method-assign]
        for name, method in _RESPONSE_METHODS.items():
            setattr(EKSResponse, name, method)
        for path in _URL_PATHS:
            eks_urls.url_paths.setdefault(path, eks_urls.response.dispatch)
        _installed = True
