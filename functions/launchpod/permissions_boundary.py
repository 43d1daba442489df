"""The permissions boundary every role Launchpod creates at run time carries: the most such a role may
ever do, action by action, and the denial of Launchpod's ownership tags. ``launchpod.policies`` conditions
every IAM write on it, so no function can widen a role beyond this document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The HyperPod execution role's inline policy (its network-interface and image actions): the boundary holds
# every action the role is given.
from launchpod.domain.clusters import hyperpod

if TYPE_CHECKING:
    from launchpod.policies import Deployment


# What AmazonEKSClusterPolicy grants the EKS cluster role, action by action (AWS Managed Policy Reference,
# https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AmazonEKSClusterPolicy.html): the
# boundary lists these rather than ec2:* and elasticloadbalancing:*.
EKS_CLUSTER_POLICY_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:UpdateAutoScalingGroup",
    "ec2:AttachVolume",
    "ec2:AuthorizeSecurityGroupIngress",
    "ec2:CreateRoute",
    "ec2:CreateSecurityGroup",
    "ec2:CreateTags",
    "ec2:CreateVolume",
    "ec2:DeleteRoute",
    "ec2:DeleteSecurityGroup",
    "ec2:DeleteVolume",
    "ec2:DescribeAccountAttributes",
    "ec2:DescribeAddresses",
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeInstanceTopology",
    "ec2:DescribeInstances",
    "ec2:DescribeInternetGateways",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeRouteTables",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeVolumes",
    "ec2:DescribeVolumesModifications",
    "ec2:DescribeVpcs",
    "ec2:DetachVolume",
    "ec2:ModifyInstanceAttribute",
    "ec2:ModifyVolume",
    "ec2:RevokeSecurityGroupIngress",
    "elasticloadbalancing:AddTags",
    "elasticloadbalancing:ApplySecurityGroupsToLoadBalancer",
    "elasticloadbalancing:AttachLoadBalancerToSubnets",
    "elasticloadbalancing:ConfigureHealthCheck",
    "elasticloadbalancing:CreateListener",
    "elasticloadbalancing:CreateLoadBalancer",
    "elasticloadbalancing:CreateLoadBalancerListeners",
    "elasticloadbalancing:CreateLoadBalancerPolicy",
    "elasticloadbalancing:CreateTargetGroup",
    "elasticloadbalancing:DeleteListener",
    "elasticloadbalancing:DeleteLoadBalancer",
    "elasticloadbalancing:DeleteLoadBalancerListeners",
    "elasticloadbalancing:DeleteTargetGroup",
    "elasticloadbalancing:DeregisterInstancesFromLoadBalancer",
    "elasticloadbalancing:DeregisterTargets",
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeLoadBalancerAttributes",
    "elasticloadbalancing:DescribeLoadBalancerPolicies",
    "elasticloadbalancing:DescribeLoadBalancers",
    "elasticloadbalancing:DescribeTargetGroupAttributes",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetHealth",
    "elasticloadbalancing:DetachLoadBalancerFromSubnets",
    "elasticloadbalancing:ModifyListener",
    "elasticloadbalancing:ModifyLoadBalancerAttributes",
    "elasticloadbalancing:ModifyTargetGroup",
    "elasticloadbalancing:ModifyTargetGroupAttributes",
    "elasticloadbalancing:RegisterInstancesWithLoadBalancer",
    "elasticloadbalancing:RegisterTargets",
    "elasticloadbalancing:SetLoadBalancerPoliciesForBackendServer",
    "elasticloadbalancing:SetLoadBalancerPoliciesOfListener",
    "kms:DescribeKey",
)
# CloudWatchAgentServerPolicy and AWSXrayWriteOnlyAccess, the observability add-on's managed policies
# (AWS Managed Policy Reference), beyond its SSM parameters (scoped below as the policy scopes them).
CONTAINER_INSIGHTS_ACTIONS = (
    "cloudwatch:PutMetricData",
    "ec2:DescribeTags",
    "ec2:DescribeVolumes",
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:DescribeLogGroups",
    "logs:DescribeLogStreams",
    "logs:PutLogEvents",
    "logs:PutRetentionPolicy",
    "xray:GetSamplingRules",
    "xray:GetSamplingStatisticSummaries",
    "xray:GetSamplingTargets",
    "xray:PutTelemetryRecords",
    "xray:PutTraceSegments",
)


# Read-only families the boundary names by prefix: every ec2:Describe* and elasticloadbalancing:Describe*
# action is a List or Read action (Service Authorization Reference, access level), and naming each one the
# roles use would pass IAM's 6,144-character limit on a managed policy (IAM User Guide, "IAM and AWS STS
# quotas").
_READ_FAMILIES = ("ec2:Describe", "elasticloadbalancing:Describe")


def _lbc_actions() -> set[str]:
    from launchpod.domain.dependencies import lbc

    out: set[str] = set()
    for statement in lbc.iam_policy()["Statement"]:
        action = statement["Action"]
        out |= {action} if isinstance(action, str) else set(action)
    return out


def boundary_document(d: Deployment) -> dict[str, Any]:
    """The most any role Launchpod creates may ever do, action by action: what the EKS cluster role
    (AmazonEKSClusterPolicy), the HyperPod execution role, the AWS Load Balancer Controller (upstream's
    policy), the observability add-on (its managed policies), the other add-ons' pod identity roles (the CSI
    drivers, the training and inference operators with KEDA's CloudWatch reads), the Karpenter role, the
    checkpoint and MLflow roles use; no IAM write beyond the load balancers' service-linked role, and no
    sts:AssumeRole. ``tests/sandbox/aws/test_iam_boundary.py`` holds every role's policy inside it."""
    p, a = d.partition, d.account
    everywhere = (
        set(EKS_CLUSTER_POLICY_ACTIONS) | set(hyperpod.NODE_ACTIONS) | set(CONTAINER_INSIGHTS_ACTIONS) | _lbc_actions()
    )
    everywhere |= {"cloudwatch:GetMetricData", "fsx:DescribeFileSystems", "fsx:DescribeVolumes"}
    everywhere.discard("iam:CreateServiceLinkedRole")
    actions = {next((f"{f}*" for f in _READ_FAMILIES if x.startswith(f)), x) for x in everywhere}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "ClusterNodesAndAddons", "Effect": "Allow", "Action": sorted(actions), "Resource": "*"},
            {
                # CloudWatchAgentServerPolicy scopes the agent's configuration parameters so.
                "Sid": "ContainerInsightsParameters",
                "Effect": "Allow",
                "Action": "ssm:GetParameter",
                "Resource": f"arn:{p}:ssm:*:*:parameter/AmazonCloudWatch-*",
            },
            {
                # The operators read their cluster's nodes; Karpenter's role adds and removes them (SageMaker
                # developer guide, "Create an IAM role for HyperPod autoscaling with Karpenter").
                "Sid": "HyperPodClusters",
                "Effect": "Allow",
                "Action": [
                    "sagemaker:BatchAddClusterNodes",
                    "sagemaker:BatchDeleteClusterNodes",
                    "sagemaker:DescribeClusterNode",
                ],
                "Resource": f"arn:{p}:sagemaker:*:{a}:cluster/*",  # a cluster lives in the Region chosen for it
            },
            {
                # The HyperPod execution role's Session Manager channels, for SSM access to nodes
                # (AmazonSageMakerClusterInstanceRolePolicy's SSMConnectivityPermissions).
                "Sid": "NodeSessions",
                "Effect": "Allow",
                "Action": [
                    "ssmmessages:CreateControlChannel",
                    "ssmmessages:CreateDataChannel",
                    "ssmmessages:OpenControlChannel",
                    "ssmmessages:OpenDataChannel",
                ],
                "Resource": "*",
            },
            {
                # The inference operator's execution role: its watcher calls UpdateClusterInference at start
                # and it tags the TLS certificates it writes to the shared bucket (launchpod.domain.features
                # .inference_policy cites AWS's pages); without these the boundary would cap the role below
                # what the operator needs.
                "Sid": "InferenceOperator",
                "Effect": "Allow",
                "Action": [
                    "ecr:BatchCheckLayerAvailability",
                    "sagemaker:DescribeClusterInference",
                    "sagemaker:UpdateClusterInference",
                ],
                "Resource": "*",
            },
            {
                # The HyperPod observability add-on's collector remote-writes into this account's Amazon Managed
                # Prometheus workspaces (launchpod.domain.hyperpod_observability.policy scopes it to one).
                "Sid": "MetricsRemoteWrite",
                "Effect": "Allow",
                "Action": "aps:RemoteWrite",
                "Resource": f"arn:{p}:aps:*:{a}:workspace/*",
            },
            {
                # The Amazon Managed Grafana workspace role Launchpod makes reads those workspaces
                # (launchpod.domain.hyperpod_observability.grafana_policy scopes its queries to one).
                "Sid": "MetricsDashboards",
                "Effect": "Allow",
                "Action": [
                    "aps:ListWorkspaces",
                    "aps:DescribeWorkspace",
                    "aps:QueryMetrics",
                    "aps:GetLabels",
                    "aps:GetSeries",
                    "aps:GetMetricMetadata",
                ],
                "Resource": "*",
            },
            {
                "Sid": "InferenceCertificates",
                "Effect": "Allow",
                "Action": "s3:PutObjectTagging",
                "Resource": f"arn:{p}:s3:::{d.bucket}/*",
            },
            {
                "Sid": "SharedBucket",
                "Effect": "Allow",
                "Action": [
                    "s3:AbortMultipartUpload",
                    "s3:DeleteObject",
                    "s3:GetObject",
                    "s3:ListBucket",
                    "s3:PutObject",
                ],
                "Resource": [f"arn:{p}:s3:::{d.bucket}", f"arn:{p}:s3:::{d.bucket}/*"],
            },
            {
                "Sid": "LoadBalancerServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": "*",
                "Condition": {"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}},
            },
            {
                # Launchpod's ownership tags decide what delete-cluster removes: no role it creates may set
                # or remove them (aws:TagKeys, "the tag keys in the request"; IAM User Guide, AWS global
                # condition context keys).
                "Sid": "NoOwnershipTags",
                "Effect": "Deny",
                "Action": [a for a in sorted(actions) if a in _TAGGING_ACTIONS],
                "Resource": "*",
                "Condition": {"ForAnyValue:StringLike": {"aws:TagKeys": [f"{d.prefix}:*"]}},
            },
        ],
    }


_TAGGING_ACTIONS = frozenset(
    {"ec2:CreateTags", "ec2:DeleteTags", "elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"}
)
