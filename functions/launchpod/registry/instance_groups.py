"""Instance groups and HyperPod-managed Karpenter autoscaling."""

from __future__ import annotations

from launchpod.registry.specs import INLINE_POLICY_ROLE, FunctionSpec, StateMachineSpec, phase_function

# What an UpdateCluster that rebuilds instance groups needs: it hands each group's execution role to HyperPod
# again (iam:PassRole), and HyperPod checks, or gives, each group's execution role its access entry, as the
# caller (sandbox/aws/iam/caller.py).
_UPDATE_CLUSTER = (
    "sagemaker:DescribeCluster",
    "sagemaker:UpdateCluster",
    "iam:PassRole",
    "eks:DescribeCluster",
    "eks:DescribeAccessEntry",
    "eks:CreateAccessEntry",
)

FUNCTIONS: tuple[FunctionSpec, ...] = (
    phase_function(
        "ig-group-subnet",
        "GroupSubnet",
        "instance_groups.group_subnet",
        "instance-groups: a dedicated /20 subnet for a new group, routed like the cluster's compute subnet",
        actions=(
            "sagemaker:DescribeCluster",
            "ec2:DescribeSubnets",
            "ec2:DescribeVpcs",
            "ec2:DescribeRouteTables",
            "ec2:CreateSubnet",
            "ec2:CreateTags",
            "ec2:AssociateRouteTable",
        ),
    ),
    phase_function(
        "ig-update-cluster",
        "UpdateCluster",
        "instance_groups.update_cluster",
        "instance-groups: UpdateCluster with every other group rebuilt from DescribeCluster",
        # HyperPod also removes a deleted group's access entry, as the caller; a group on a training plan is
        # authorized against the plan too.
        actions=(*_UPDATE_CLUSTER, "eks:DeleteAccessEntry"),
    ),
    phase_function(
        "ig-wait-group",
        "WaitGroup",
        "instance_groups.wait_group",
        "instance-groups: follows the request's cluster operation (or DescribeCluster) to a terminal state "
        "(why it failed: its events)",
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:ListClusterEvents",
            "sagemaker:DescribeClusterEvent",  # the failure message of the group's newest Error event
            "sagemaker:ListClusterOperations",
            "sagemaker:DescribeClusterOperation",
        ),
    ),
    phase_function(
        "ig-release-subnet",
        "ReleaseSubnet",
        "instance_groups.release_subnet",
        "instance-groups: deletes the dedicated subnet of a deleted group",
        actions=("sagemaker:DescribeCluster", "ec2:DescribeSubnets", "ec2:DeleteSubnet"),
    ),
    phase_function(
        "as-cluster-role",
        "ClusterRole",
        "autoscaling.cluster_role",
        "autoscaling: the role HyperPod assumes to add and remove nodes for Karpenter",
        actions=("sagemaker:DescribeCluster", *INLINE_POLICY_ROLE),
        placeholder="AsClusterRoleFn",
    ),
    phase_function(
        "as-remove-karpenter",
        "RemoveKarpenter",
        "autoscaling.remove_karpenter",
        "autoscaling: removes the NodePool and HyperpodNodeClass before disabling",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
        placeholder="AsRemoveKarpenterFn",
    ),
    phase_function(
        "as-update-autoscaling",
        "UpdateAutoscaling",
        "autoscaling.update_autoscaling",
        "autoscaling: UpdateCluster AutoScaling Karpenter with the cluster role and node recovery Automatic",
        # UpdateCluster hands the cluster role to HyperPod too (iam:PassRole).
        actions=_UPDATE_CLUSTER,
        placeholder="AsUpdateAutoscalingFn",
    ),
    phase_function(
        "as-wait-autoscaling",
        "WaitAutoscaling",
        "autoscaling.wait_autoscaling",
        "autoscaling: polls DescribeCluster until AutoScaling is InService or gone",
        actions=("sagemaker:DescribeCluster",),
        placeholder="AsWaitAutoscalingFn",
    ),
    phase_function(
        "as-apply-karpenter",
        "ApplyKarpenter",
        "autoscaling.apply_karpenter",
        "autoscaling: applies the HyperpodNodeClass and the NodePool",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
        placeholder="AsApplyKarpenterFn",
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = (
    StateMachineSpec(
        "instance-groups",
        "One change to one instance group by UpdateCluster, the other groups kept; then the group InService or gone",
        functions=(
            "ig-group-subnet",
            "ig-update-cluster",
            "ig-wait-group",
            "ig-release-subnet",
        ),
    ),
    StateMachineSpec(
        "autoscaling",
        "HyperPod-managed Karpenter: cluster role, UpdateCluster AutoScaling, InService, node class and pool",
        functions=(
            "as-cluster-role",
            "as-remove-karpenter",
            "as-update-autoscaling",
            "as-wait-autoscaling",
            "as-apply-karpenter",
        ),
    ),
)
