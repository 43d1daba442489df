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
#: run it, its versions (newest first, each with the Kubernetes versions it is compatible with; the
#: first compatible one is the default), the JSON schema DescribeAddonConfiguration serves for its
#: configuration values, and the add-ons that must be installed before it (``prerequisites``: the
#: add-on fails to create without them) or that it needs running (``requires``: DEGRADED until they are).
#: ``register_addon`` adds more. Every version below is either one AWS's pages name (cited next to it)
#: or marked "not verified": AWS publishes no version list for that add-on, and the sandbox keeps the
#: build it had so that Launchpod's resolution (DescribeAddonVersions, the pin or the default) is what
#: decides, never a pin chosen to match this table.
ADDON_CATALOG: dict[str, dict[str, Any]] = {}

#: A workload of an add-on: ("Deployment" | "DaemonSet", name). A DaemonSet runs one pod per node, so it
#: is complete with zero nodes; a Deployment's replicas need a node to run on.
Workload = tuple[str, str]

#: The schema of an add-on whose schema AWS does not publish: any JSON object (EKS refuses values that
#: are not an object: "Json schema validation failed with error: [$: null found, object expected]",
#: https://github.com/cookpad/terraform-aws-eks/pull/331). Real schemas are stricter (they forbid keys
#: they do not define, e.g. https://github.com/awslabs/mountpoint-s3-csi-driver/issues/784); not modelled.
ANY_OBJECT_SCHEMA: dict[str, Any] = {"$schema": "http://json-schema.org/draft-06/schema#", "type": "object"}


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
    prerequisites: tuple[tuple[str, str], ...] = (),
    schema: dict[str, Any] | None = None,
) -> None:
    """Offer add-on ``name`` (CreateAddon refuses unknown names, as AWS does).

    ``versions`` is ``[(addon version, compatible Kubernetes versions), ...]`` newest first, or one
    version string compatible with every offered Kubernetes version. ``prerequisites`` are
    ``(add-on, the error the add-on reports when it is missing)``.
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
        "prerequisites": tuple(prerequisites),
        "schema": schema or ANY_OBJECT_SCHEMA,
    }


def addon_versions(name: str, kubernetes_version: str) -> list[str]:
    """The versions of add-on ``name`` offered for clusters of ``kubernetes_version``, newest first."""
    return [v for v, compatible in ADDON_CATALOG[name]["versions"] if kubernetes_version in compatible]


def default_addon_version(name: str, kubernetes_version: str) -> str | None:
    offered = addon_versions(name, kubernetes_version)
    return offered[0] if offered else None


def configuration_schema(name: str) -> dict[str, Any]:
    """The JSON schema of add-on ``name``'s configuration values (DescribeAddonConfiguration)."""
    return dict(ADDON_CATALOG[name]["schema"])


def requires_configuration(name: str) -> bool:
    """The schema has required keys: the add-on cannot be created without configuration values."""
    return bool(ADDON_CATALOG[name]["schema"].get("required"))


_ALL = KUBERNETES_VERSIONS
_DS, _DEP = "DaemonSet", "Deployment"

# The HyperPod inference add-on's configuration, as "Setting up your HyperPod clusters for model
# deployment" and its troubleshooting pages pass it: executionRoleArn and tlsCertificateS3Bucket in every
# example, hyperpodClusterArn, alb/keda with their IRSA roles, jumpstartGatedModelDownloadRoleArn
# (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-cli.html),
# inferenceOperator/inferenceGateway (v2, https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-inference-gateway.html).
# The operator's chart fails without the two ("executionRoleArn must be set", "tlsCertificateS3Bucket
# must be set": aws/sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart/charts/inference-operator
# templates/_validateRequiredValues.tpl). AWS does not publish the add-on's schema: its keys and
# the two required ones are taken from those pages; "additionalProperties": false is inferred (EKS's
# published schemas forbid undefined keys, e.g. vpc-cni's in https://github.com/aws/amazon-vpc-cni-k8s/issues/3059).
_ROLE = {"type": "string", "pattern": r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$"}
_IRSA_SA = {
    "type": "object",
    "properties": {"create": {"type": "boolean"}, "roleArn": _ROLE},
    "additionalProperties": False,
}
INFERENCE_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-06/schema#",
    "type": "object",
    "required": ["executionRoleArn", "tlsCertificateS3Bucket"],
    "additionalProperties": False,
    "properties": {
        "executionRoleArn": _ROLE,
        "tlsCertificateS3Bucket": {"type": "string", "minLength": 3},
        "hyperpodClusterArn": {"type": "string", "pattern": r"^arn:aws[a-z-]*:sagemaker:"},
        "jumpstartGatedModelDownloadRoleArn": _ROLE,
        "alb": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "serviceAccount": _IRSA_SA},
            "additionalProperties": False,
        },
        "keda": {
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean"},
                "auth": {
                    "type": "object",
                    "properties": {
                        "aws": {
                            "type": "object",
                            "properties": {
                                "irsa": {
                                    "type": "object",
                                    "properties": {"enabled": {"type": "boolean"}, "roleArn": _ROLE},
                                    "additionalProperties": False,
                                }
                            },
                        }
                    },
                },
            },
            "additionalProperties": False,
        },
        "inferenceOperator": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        "inferenceGateway": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "serviceAccount": _IRSA_SA},
        },
    },
}

# What each add-on must find installed, with the error AWS documents for its absence. The inference add-on:
# "Inference operator installation failures through AWS CLI" lists "S3 CSI driver not installed (missing
# CSIDriver s3.csi.aws.com)", "FSx CSI driver not installed (missing CSIDriver fsx.csi.aws.com)" and
# "Missing required CRD: certificaterequests.cert-manager.io. The cert-manager add-on is not installed."
# (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-cli.html). The
# page does not say which AddonIssue code EKS reports them with; the sandbox uses K8sResourceNotFound.
_CSI_HELP = "Please install the required CSI driver and see the troubleshooting guide for more information."
_PREREQUISITES = {
    "amazon-sagemaker-hyperpod-inference": (
        (
            "cert-manager",
            "Missing required CRD: certificaterequests.cert-manager.io. The cert-manager add-on is not "
            "installed. Please install cert-manager and see the troubleshooting guide for more information.",
        ),
        (
            "aws-mountpoint-s3-csi-driver",
            f"S3 CSI driver not installed (missing CSIDriver s3.csi.aws.com). {_CSI_HELP}",
        ),
        ("aws-fsx-csi-driver", f"FSx CSI driver not installed (missing CSIDriver fsx.csi.aws.com). {_CSI_HELP}"),
    ),
}
# Add-ons whose workloads cannot start without another add-on running: the HyperPod training operator's
# webhook takes its serving certificate from cert-manager, which AWS lists as its prerequisite ("Installing
# the training operator", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator-install.html).
_REQUIRES = {
    "amazon-sagemaker-hyperpod-training-operator": ("cert-manager",),
    "amazon-sagemaker-hyperpod-inference": ("cert-manager",),
}
# The HyperPod observability add-on's configuration: AWS publishes no schema page. Its keys are the ones AWS's
# Terraform sample sets and the HyperPod CLI reads back (awslabs/awsome-distributed-training,
# 1.architectures/7.sagemaker-hyperpod-eks/terraform-modules/hyperpod-eks-tf/modules/observability;
# aws/sagemaker-hyperpod-cli observability/utils.py): ampWorkspace {prometheusEndpoint, arn}, amgWorkspace
# {workspaceName, arn}, metricsProvider.<category> {level BASIC|ADVANCED|DISABLED, scrapeInterval} for the
# categories "HyperPod cluster metrics" lists (.../sagemaker-hyperpod-observability-cluster-metrics.html), and
# logging.enabled. ampWorkspace required (every install, console or Terraform, names the workspace it writes
# to) and "additionalProperties": false are inferred, as for the inference add-on above.
_METRIC_LEVEL = {
    "type": "object",
    "properties": {
        "level": {"enum": ["BASIC", "ADVANCED", "DISABLED"]},
        "scrapeInterval": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
}
_METRIC_CATEGORIES = (
    "trainingMetrics",
    "inferenceMetrics",
    "taskGovernanceMetrics",
    "scalingMetrics",
    "customMetrics",
    "nodeMetrics",
    "acceleratedComputeMetrics",
    "networkMetrics",
)
OBSERVABILITY_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-06/schema#",
    "type": "object",
    "required": ["ampWorkspace"],
    "additionalProperties": False,
    "properties": {
        "ampWorkspace": {
            "type": "object",
            "required": ["prometheusEndpoint", "arn"],
            "properties": {
                "prometheusEndpoint": {"type": "string", "pattern": r"^https://.+/workspaces/ws-[^/]+$"},
                "arn": {"type": "string", "pattern": r"^arn:aws[a-z-]*:aps:[a-z0-9-]+:\d{12}:workspace/ws-.+$"},
            },
            "additionalProperties": False,
        },
        "amgWorkspace": {
            "type": "object",
            "properties": {"workspaceName": {"type": "string"}, "arn": {"type": "string"}},
            "additionalProperties": False,
        },
        "metricsProvider": {
            "type": "object",
            "properties": dict.fromkeys(_METRIC_CATEGORIES, _METRIC_LEVEL),
            "additionalProperties": False,
        },
        "logging": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}},
            "additionalProperties": False,
        },
    },
}
_SCHEMAS = {
    "amazon-sagemaker-hyperpod-inference": INFERENCE_SCHEMA,
    "amazon-sagemaker-hyperpod-observability": OBSERVABILITY_SCHEMA,
}

# The EKS user guide's tables of "the latest version of the Amazon EKS add-on type for each Kubernetes
# version" change as AWS ships builds; the sandbox models 2026-12-01, so it takes the snapshot whose
# newest Kubernetes version is 1.35 and keeps the builds earlier snapshots named for the same versions:
# - coredns: 1.33-1.35 v1.13.2-eksbuild.4, 1.32 v1.11.4-eksbuild.33
#   (https://docs.amazonaws.cn/zh_cn/eks/latest/userguide/managing-coredns.md); earlier, 1.33-1.34
#   v1.12.4-eksbuild.1 and 1.32 v1.11.4-eksbuild.24 (https://docs.aws.amazon.com/eks/latest/userguide/managing-coredns.html).
# - kube-proxy: 1.35 v1.35.3-eksbuild.2, 1.34 v1.34.6-eksbuild.2, 1.33 v1.33.10-eksbuild.2, 1.32
#   v1.32.13-eksbuild.5 (https://docs.amazonaws.cn/zh_cn/eks/latest/userguide/managing-kube-proxy.md);
#   earlier 1.34 v1.34.1-eksbuild.2, 1.33 v1.33.5-eksbuild.2, 1.32 v1.32.9-eksbuild.2
#   (https://docs.amazonaws.cn/eks/latest/userguide/managing-kube-proxy.html).
# - vpc-cni: one build for every Kubernetes version, v1.20.1-eksbuild.3 for 1.27-1.33
#   (https://docs.aws.amazon.com/ja_jp/eks/latest/userguide/managing-vpc-cni.html); its being offered for
#   1.34 and 1.35 is inferred from the table giving one build for all versions. v1.19.2-eksbuild.1 for 1.32
#   (https://docs.aws.amazon.com/ja_jp/eks/latest/userguide/managing-vpc-cni.html, an earlier snapshot).
# The other add-ons' pages give no per-Kubernetes-version table; their builds are offered for every
# version the sandbox offers (inferred), and each is cited where a page names it.
_AddonRow = tuple[str, list[tuple[str, tuple[str, ...]]] | str, str, str, str, str, tuple[Workload, ...]]
_ADDONS: list[_AddonRow] = [
    (
        "vpc-cni",
        [("v1.20.1-eksbuild.3", _ALL), ("v1.19.2-eksbuild.1", ("1.32",))],
        "networking",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "aws-node"),),
    ),
    (
        "coredns",
        [
            ("v1.13.2-eksbuild.4", ("1.33", "1.34", "1.35")),
            ("v1.12.4-eksbuild.1", ("1.33", "1.34")),
            ("v1.11.4-eksbuild.33", ("1.32",)),
            ("v1.11.4-eksbuild.24", ("1.32",)),
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
            ("v1.35.3-eksbuild.2", ("1.35",)),
            ("v1.34.6-eksbuild.2", ("1.34",)),
            ("v1.34.1-eksbuild.2", ("1.34",)),
            ("v1.33.10-eksbuild.2", ("1.33",)),
            ("v1.33.5-eksbuild.2", ("1.33",)),
            ("v1.32.13-eksbuild.5", ("1.32",)),
            ("v1.32.9-eksbuild.2", ("1.32",)),
        ],
        "networking",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "kube-proxy"),),
    ),
    (
        "eks-pod-identity-agent",
        # not verified: the add-on's page (add-ons-pod-id.html) names no build.
        [("v1.3.8-eksbuild.2", _ALL)],
        "security",
        "aws",
        "eks",
        "kube-system",
        ((_DS, "eks-pod-identity-agent"),),
    ),
    (
        "aws-ebs-csi-driver",
        [("v1.48.0-eksbuild.2", _ALL)],  # not verified
        "storage",
        "aws",
        "eks",
        "kube-system",
        ((_DEP, "ebs-csi-controller"), (_DS, "ebs-csi-node")),
    ),
    (
        "aws-mountpoint-s3-csi-driver",
        # v1.14.1-eksbuild.1: the build the inference operator's troubleshooting page installs
        # (sagemaker-hyperpod-model-deployment-ts-cli.html). v2.x: not verified (Mountpoint for S3 CSI v2
        # is the release with the s3-csi-controller and pod identity; AWS's pages name no v2 build).
        [("v2.1.0-eksbuild.1", _ALL), ("v2.0.0-eksbuild.1", _ALL), ("v1.14.1-eksbuild.1", _ALL)],
        "storage",
        "aws",
        "s3",
        "kube-system",
        ((_DEP, "s3-csi-controller"), (_DS, "s3-csi-node")),
    ),
    (
        "aws-fsx-csi-driver",
        # the build the inference operator's troubleshooting page installs (ts-cli page above)
        [("v1.6.0-eksbuild.1", _ALL)],
        "storage",
        "aws",
        "eks",
        "kube-system",
        ((_DEP, "fsx-csi-controller"), (_DS, "fsx-csi-node")),
    ),
    (
        "cert-manager",
        # the build the inference operator's troubleshooting page installs (ts-cli page above); no other
        # build is named on AWS's pages.
        [("v1.18.2-eksbuild.2", _ALL)],
        "security",
        "community",
        "eks",
        "cert-manager",
        ((_DEP, "cert-manager"), (_DEP, "cert-manager-cainjector"), (_DEP, "cert-manager-webhook")),
    ),
    (
        "metrics-server",
        [("v0.8.1-eksbuild.1", _ALL), ("v0.8.0-eksbuild.2", _ALL), ("v0.8.0-eksbuild.1", _ALL)],  # not verified
        "observability",
        "community",
        "eks",
        "kube-system",
        ((_DEP, "metrics-server"),),
    ),
    (
        "amazon-cloudwatch-observability",
        # v6.2.0-eksbuild.1: the build AWS's install guide names (install-CloudWatch-Observability-EKS-addon.html);
        # v4.4.0-eksbuild.1 not verified.
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
        # v1.2.0: "You must install v1.2.0 or above" for checkpointless training
        # (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-checkpointless.html); the
        # "-eksbuild.1" suffix is inferred (AWS's pages name no build). v1.1.0-eksbuild.1: not verified.
        [("v1.2.0-eksbuild.1", _ALL), ("v1.1.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "aws-hyperpod",
        ((_DEP, "hp-training-operator-hp-training-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-inference",
        # v2.0.0-eksbuild.2: the inference gateway page's create-addon; v1.0.0-eksbuild.1: the
        # troubleshooting page's (both cited above).
        [("v2.0.0-eksbuild.2", _ALL), ("v1.0.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "hyperpod-inference-system",
        ((_DEP, "hyperpod-inference-operator-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-taskgovernance",
        # v1.6.0-eksbuild.1 (Kueue v0.19.2): AWS's upgrade guide; v1.3.0-eksbuild.1: the oldest the
        # training operator works with ("Troubleshooting", sagemaker-eks-operator-troubleshooting.html).
        [("v1.6.0-eksbuild.1", _ALL), ("v1.3.0-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "kueue-system",
        ((_DEP, "kueue-controller-manager"),),
    ),
    (
        "amazon-sagemaker-hyperpod-observability",
        # v1.0.5-eksbuild.1: the build the add-on's troubleshooting page names (restricted instance groups'
        # toleration, sagemaker-hyperpod-observability-addon-troubleshooting.html); v1.0.0-eksbuild.1 not verified.
        [("v1.0.5-eksbuild.1", _ALL), ("v1.0.0-eksbuild.1", _ALL)],
        "observability",
        "aws",
        "sagemaker",
        "hyperpod-observability",
        ((_DEP, "hyperpod-observability-controller-manager"), (_DS, "hyperpod-node-collector")),
    ),
    (
        "amazon-sagemaker-spaces",
        # The HyperPod Spaces add-on: the jupyter-k8s operator in jupyter-k8s-system (jupyter-infra/jupyter-k8s,
        # its controller Deployment jupyter-k8s-controller-manager). hyperpod-space-template 1.1 needs 0.1.6 or
        # later (its MIN_ADDON_VERSION); the "-eksbuild.1" build is not verified.
        [("v0.1.6-eksbuild.1", _ALL)],
        "machine-learning",
        "aws",
        "sagemaker",
        "jupyter-k8s-system",
        ((_DEP, "jupyter-k8s-controller-manager"),),
    ),
]
for _name, _versions, _type, _owner, _publisher, _namespace, _workloads in _ADDONS:
    register_addon(
        _name,
        _versions,
        addon_type=_type,
        owner=_owner,
        publisher=_publisher,
        namespace=_namespace,
        workloads=_workloads,
        requires=_REQUIRES.get(_name, ()),
        prerequisites=_PREREQUISITES.get(_name, ()),
        schema=_SCHEMAS.get(_name),
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
