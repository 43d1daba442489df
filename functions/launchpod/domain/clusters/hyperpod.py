"""The create-hyperpod workflow's rules: phases, the instance groups CreateCluster receives, the
lifecycle script, and advice for HyperPod's failure messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import InvalidInput, NotFound, next_step
from launchpod.domain.instance_groups.changes import group_spec
from launchpod.domain.operations import WorkflowPlan

KIND = "create-hyperpod"

PHASES: tuple[tuple[str, str], ...] = (
    ("LifecycleScripts", "Lifecycle scripts to the shared bucket"),
    ("ExecutionRole", "IAM execution role of the instance groups"),
    ("ComputeSubnet", "A /20 compute subnet in the chosen zone"),
    ("SecurityGroup", "The security group shared with the EKS control plane, with the self rules EFA needs"),
    ("HyperPodAccess", "EKS access entry for HyperPod"),
    ("CreateHyperPod", "Create the HyperPod cluster"),
    ("WaitInService", "Wait until HyperPod is InService"),
)

COMPUTE_PREFIX = 20
# HyperPod takes ~15 minutes; past 90 something is wrong. The workflow sleeps until HyperPod's
# cluster-state event wakes it; should that event be lost, it looks anyway every FALLBACK seconds
# (the TimeoutSeconds of AwaitInService in create-hyperpod.asl.json).
INSERVICE_FALLBACK_SECONDS = 300
MAX_INSERVICE_POLLS = 90 * 60 // INSERVICE_FALLBACK_SECONDS
# Statuses that end the wait: InService, or one WaitInService turns into the user's error.
SETTLED_STATUSES = frozenset({"InService", "Failed", "RollingBack", "Deleting"})
EXECUTION_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
SCRIPTS_PREFIX = "lifecycle-scripts"

ON_CREATE = """#!/bin/bash
# Launchpod lifecycle script for HyperPod on EKS: runs once on every new node, as root.
set -euxo pipefail
LOG=/var/log/provision/launchpod-on-create.log
mkdir -p "$(dirname "$LOG")"
exec > >(tee -a "$LOG") 2>&1
echo "launchpod on_create: $(hostname) $(date -Is)"
# HyperPod mounts the extra EBS volume at /opt/sagemaker; keep container images and pod storage
# there so large images do not fill the root volume.
if mountpoint -q /opt/sagemaker; then
  mkdir -p /opt/sagemaker/containerd /opt/sagemaker/kubelet
  if [ -d /var/lib/containerd ] && [ ! -L /var/lib/containerd ]; then
    systemctl stop containerd || true
    rsync -a /var/lib/containerd/ /opt/sagemaker/containerd/ && rm -rf /var/lib/containerd
    ln -s /opt/sagemaker/containerd /var/lib/containerd
    systemctl start containerd || true
  fi
fi
echo "launchpod on_create: done"
"""


def plan(request: CreateHyperPodInput) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)


def hyperpod_name(cluster: str) -> str:
    """The HyperPod cluster shares its EKS cluster's name: one name for one cluster."""
    return cluster


def keeps_events(cluster: HyperPodCluster | None) -> bool:
    """Whether HyperPod keeps cluster events for this cluster: ListClusterEvents and DescribeClusterEvent are
    "only supported when the NodeProvisioningMode is set to Continuous" (SageMaker API reference; the HyperPod
    cluster events reference)."""
    return cluster is not None and cluster.continuous


def no_hyperpod(cluster: str) -> NotFound:
    """404 for a cluster whose EKS control plane has no HyperPod cluster (yet, or any more)."""
    return NotFound(
        f"{cluster} has no HyperPod cluster; create one first, then try again.",
        details=[next_step(f"POST /api/clusters/{cluster}/hyperpod")],
    )


def events_unavailable(cluster: str) -> str:
    return (
        f"HyperPod keeps cluster events only for clusters with continuous provisioning, and {cluster} was created "
        "without it (NodeProvisioningMode is not Continuous). Clusters created with continuous provisioning have "
        "their events; meanwhile the cluster's node list and the nodes' Kubernetes events show their state."
    )


def scripts_uri(bucket: str, cluster: str) -> str:
    return f"s3://{bucket}/{SCRIPTS_PREFIX}/{cluster}/"


def check_instance_types(request: CreateHyperPodInput, offered: dict[str, Sequence[str]], at: str = "body") -> None:
    """Every instance type must be offered in the zone chosen; the message lists where it is."""
    for index, group in enumerate(request.instanceGroups):
        for instance_type in group.types:
            zones = offered.get(instance_type)
            if zones is not None and request.availabilityZone not in zones:
                where = ", ".join(zones) if zones else "no zone of this region"
                flexible = " Leave it out of instanceTypes, or choose a zone every type is offered in." * bool(
                    group.instanceTypes
                )
                raise InvalidInput(
                    f"Instance type {instance_type} is not offered in {request.availabilityZone}; offered in"
                    f" {where}.{flexible}",
                    field=f"{at}.instanceGroups.{index}.{'instanceTypes' if group.instanceTypes else 'instanceType'}",
                    rule="offered_in_zone",
                )


def instance_groups(request: CreateHyperPodInput, role_arn: str, scripts: str) -> list[dict[str, Any]]:
    """CreateCluster's InstanceGroups: each group's specification (group_spec) with the lifecycle scripts and
    its training plan."""
    groups = []
    for g in request.instanceGroups:
        spec = group_spec(g, execution_role=role_arn, threads_per_core=g.threadsPerCore)
        spec["LifeCycleConfig"] = {"SourceS3Uri": scripts, "OnCreate": "on_create.sh"}
        if g.trainingPlanArn:
            spec["TrainingPlanArn"] = g.trainingPlanArn
        groups.append(spec)
    return groups


def failure_hint(message: str) -> str:
    """HyperPod's FailureMessage, verbatim, with the likely cause and what to do."""
    lowered = message.lower()
    if "capacity" in lowered:
        hint = "Likely cause: capacity. Try another availability zone, fewer instances, or a training plan."
    elif "quota" in lowered or "limit" in lowered:
        hint = "Likely cause: a service quota. Request an increase for this instance type in Service Quotas."
    elif "lifecycle" in lowered or "on_create" in lowered:
        hint = "Likely cause: the lifecycle script. Check its CloudWatch logs under /aws/sagemaker/Clusters/."
    elif "security group" in lowered or "efa" in lowered:
        hint = "Likely cause: the security group. EFA needs all traffic allowed to and from the group itself."
    elif "availability zone" in lowered or "subnet" in lowered:
        hint = "Likely cause: the zone or subnet. Pick a zone that offers the instance type."
    else:
        hint = "Check the cluster's events (ListClusterEvents) for the node that failed."
    return f"{message} — {hint}"


SSM_SESSION_ACTIONS = (
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
)


# The execution role's network-interface, image, Pod Identity and metrics actions, on every resource
# (SageMaker developer guide, "IAM role for SageMaker HyperPod"); the permissions boundary allows them too.
NODE_ACTIONS = (
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
)


def execution_role_policy(bucket: str, cluster: str) -> dict[str, object]:
    """What HyperPod's nodes may do as their execution role: read their lifecycle scripts, manage their
    network interfaces, write logs, and open the Session Manager channels SSM access to a node needs."""
    prefix = f"{SCRIPTS_PREFIX}/{cluster}/"
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
                "Action": list(NODE_ACTIONS),
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
