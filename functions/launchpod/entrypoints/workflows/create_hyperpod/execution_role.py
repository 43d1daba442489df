"""ExecutionRole: the role HyperPod nodes run as — read the lifecycle scripts, manage their
network interfaces, write logs, and open the Session Manager channels that SSM access to a node needs.
Nothing more."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ExecutionRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.entrypoints.workflows.create_hyperpod._common import execution_role_name, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

SSM_SESSION_ACTIONS = (
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
)


def policy(bucket: str, cluster: str) -> dict[str, object]:
    prefix = f"{hyperpod.SCRIPTS_PREFIX}/{cluster}/"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/{prefix}*"},
            {
                "Effect": "Allow",
                "Action": "s3:ListBucket",
                "Resource": f"arn:aws:s3:::{bucket}",
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            },
            {
                "Effect": "Allow",
                "Action": [
                    "ec2:AssignPrivateIpAddresses",
                    "ec2:CreateNetworkInterface",
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DetachNetworkInterface",
                    "ec2:ModifyNetworkInterfaceAttribute",
                    "ec2:UnassignPrivateIpAddresses",
                    "ecr:BatchGetImage",
                    "ecr:GetAuthorizationToken",
                    "ecr:GetDownloadUrlForLayer",
                    "eks-auth:AssumeRoleForPodIdentity",
                    "cloudwatch:PutMetricData",
                ],
                "Resource": "*",
            },
            {"Effect": "Allow", "Action": "ec2:CreateTags", "Resource": "arn:aws:ec2:*:*:network-interface/*"},
            {
                "Effect": "Allow",
                "Action": [
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:PutLogEvents",
                    "logs:DescribeLogStreams",
                ],
                "Resource": "arn:aws:logs:*:*:log-group:/aws/sagemaker/*",
            },
            {
                # A node's SSM agent opens these channels for every session (aws ssm start-session --target
                # sagemaker-cluster:<id>_<group>-<instance>); AWS's node policy grants them as
                # "SSMConnectivityPermissions" (https://docs.aws.amazon.com/sagemaker/latest/dg/
                # security-iam-awsmanpol-AmazonSageMakerClusterInstanceRolePolicy.html).
                "Effect": "Allow",
                "Action": list(SSM_SESSION_ACTIONS),
                "Resource": "*",
            },
        ],
    }


def run(doc: WorkflowInput) -> PhaseResult:
    name = execution_role_name(doc.target)
    iam = wiring.iam()
    arn = iam.ensure_role(
        name,
        "sagemaker.amazonaws.com",
        [],
        tags_of(doc),
        f"HyperPod execution role of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(name, "launchpod-hyperpod-nodes", policy(settings().bucket, doc.target))
    return PhaseResult(outputs=ExecutionRoleOutput(roleArn=arn, roleName=name), message=arn)


handler = phase("ExecutionRole")(run)
