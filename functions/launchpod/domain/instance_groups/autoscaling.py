"""HyperPod-managed Karpenter: the autoscaling workflow's phases, the cluster role, and the
HyperpodNodeClass and NodePool it applies. Karpenter here administers HyperPod instance groups only
(BatchAddClusterNodes / BatchDeleteClusterNodes), not EC2 instances or EKS node groups."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.instance_groups import AutoscalingStateView
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.operations import WorkflowPlan

KIND = "autoscaling"
PHASES: tuple[tuple[str, str], ...] = (
    ("ClusterRole", "IAM role HyperPod assumes to add and remove nodes (enable)"),
    ("RemoveKarpenter", "NodePool and HyperpodNodeClass removed (disable)"),
    ("UpdateAutoscaling", "UpdateCluster AutoScaling (Karpenter), ClusterRole, node recovery Automatic"),
    ("WaitAutoscaling", "Wait until AutoScaling is InService (or gone)"),
    ("ApplyKarpenter", "HyperpodNodeClass and NodePool (enable)"),
)
NAME = "launchpod"
TRUSTED_SERVICE = "hyperpod.sagemaker.amazonaws.com"
POLL_SECONDS = 30
MAX_POLLS = 60
MANAGED_LABEL = {"app.kubernetes.io/managed-by": "launchpod"}


def plan(request: AutoscalingInput) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)


def role_policy(cluster_arn: str) -> dict[str, Any]:
    """What the cluster role may do: add and remove this cluster's nodes (the IAM guide's permissions)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
                "Resource": cluster_arn,
            }
        ],
    }


def node_class(groups: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sagemaker.amazonaws.com/v1",
        "kind": "HyperpodNodeClass",
        "metadata": {"name": NAME, "labels": dict(MANAGED_LABEL)},
        "spec": {"instanceGroups": list(groups)},
    }


def node_pool(consolidate_after_seconds: int) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": NAME, "labels": dict(MANAGED_LABEL)},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {
                        "group": "karpenter.sagemaker.amazonaws.com",
                        "kind": "HyperpodNodeClass",
                        "name": NAME,
                    },
                    "expireAfter": "Never",
                    "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "Exists"}],
                }
            },
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": f"{consolidate_after_seconds}s"},
        },
    }


def check_groups(request: AutoscalingInput, cluster: HyperPodCluster) -> None:
    names = [g.name for g in cluster.instance_groups]
    unknown = [g for g in request.instanceGroups if g not in names]
    if unknown:
        raise InvalidInput(
            f"{request.name} has no instance group {', '.join(unknown)}; it has {', '.join(names) or 'none'}. "
            "Karpenter scales HyperPod instance groups only: add the group first.",
            field="body.instanceGroups",
            rule="instance_group_exists",
        )


# HyperPod's autoscaling is "built on HyperPod's continuous provisioning", a prerequisite AWS has you set "when
# creating a SageMaker HyperPod cluster" (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling.html,
# Prerequisites); it documents no switch of an existing cluster, so Launchpod never sends one.
AUTOSCALING_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling.html"
# "Only on-demand capacity is supported at this time. Instance groups with Training plan or reserved capacity are
# not supported." and "Instance groups with DeepHealthChecks (DHC) are not supported" (pods stay pending for the
# 60-90 minutes a check takes, and Karpenter over-provisions); "You must start with 0 nodes in your instance
# group ... If you start with more than 0 nodes, Karpenter will scale them down to 0."
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-nodeclass.html
NODECLASS_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-nodeclass.html"


def _nodes(group: InstanceGroupState) -> int:
    return max(group.current_count, group.target_count)


def check_enable(request: AutoscalingInput, cluster: HyperPodCluster, already: set[str]) -> None:
    """What AWS does not support, and what would lose capacity the user did not agree to lose, refused before
    anything starts: a cluster created without continuous provisioning; a group on a training plan (reserved
    capacity) or with deep health checks; a group with nodes the request does not confirm may go; and no
    group left outside Karpenter with a node for the system pods (CoreDNS, controllers, webhooks).
    ``already``: the groups Karpenter manages now (their counts are Karpenter's)."""
    if not request.enabled:
        return
    if not cluster.continuous:
        raise Conflict(
            f"HyperPod autoscaling needs continuous provisioning, which AWS sets when a cluster is created, and "
            f"{request.name} was created without it (NodeProvisioningMode is not Continuous). Create a cluster with "
            f"nodeProvisioningMode Continuous to use Karpenter ({AUTOSCALING_DOC})."
        )
    groups = {g.name: g for g in cluster.instance_groups}
    excluded = []
    for name in request.instanceGroups:
        group = groups[name]
        if group.training_plan_arn:
            excluded.append(f"{name} runs on a training plan (reserved capacity)")
        if group.deep_health_checks:
            excluded.append(f"{name} runs deep health checks on start")
    if excluded:
        raise InvalidInput(
            f"HyperPod's Karpenter does not support {'; '.join(excluded)}. Choose on-demand or Spot groups without "
            f"deep health checks, or add one for autoscaling ({NODECLASS_DOC}).",
            field="body.instanceGroups",
            rule="autoscaling_supported_group",
        )
    losing = [
        f"{name} ({_nodes(groups[name])} nodes)"
        for name in request.instanceGroups
        if name not in already and name not in request.confirmScaleToZero and _nodes(groups[name]) > 0
    ]
    if losing:
        raise InvalidInput(
            f"Karpenter starts the groups it manages at 0 nodes, so the nodes of {', '.join(losing)} would be "
            "terminated with whatever runs on them. Name those groups in confirmScaleToZero to let their nodes go, "
            f"or autoscale groups with no nodes (add one at instanceCount 0) ({NODECLASS_DOC}).",
            field="body.confirmScaleToZero",
            rule="confirm_scale_to_zero",
        )
    # AWS's own Karpenter cluster keeps a "system" group of one node outside the NodeClass (https://docs.aws.
    # amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-cluster.html): CoreDNS, the add-ons'
    # controllers and webhooks need a node that Karpenter does not take back to zero.
    steady = [n for n, g in groups.items() if n not in request.instanceGroups and g.target_count >= 1]
    if not steady:
        raise InvalidInput(
            f"Every instance group of {request.name} would scale to zero, leaving no node for the system pods "
            "(CoreDNS, controllers, webhooks) that Karpenter's own scaling and the add-ons need. Keep a group outside "
            "autoscaling with at least 1 node (AWS's example keeps a 'system' group of one ml.c5.xlarge), or add one.",
            field="body.instanceGroups",
            rule="system_capacity",
        )


def managed_specs(specs: list[dict[str, Any]], groups: list[str]) -> list[dict[str, Any]]:
    """A managed group starts at 0: Karpenter brings its nodes when pods need them."""
    return [{**s, "InstanceCount": 0} if s["InstanceGroupName"] in groups else s for s in specs]


def is_noop(
    request: AutoscalingInput, cluster: HyperPodCluster, klass: dict[str, Any] | None, pool: dict[str, Any] | None
) -> bool:
    """Nothing to do: disabled and already off, or enabled, InService, with the same groups and delay."""
    config = cluster.autoscaling
    if not request.enabled:
        return config is None or config.mode == "Disable"
    if config is None or config.mode != "Enable" or config.status != "InService" or not klass or not pool:
        return False
    same_groups = (klass.get("spec") or {}).get("instanceGroups") == list(request.instanceGroups)
    delay = ((pool.get("spec") or {}).get("disruption") or {}).get("consolidateAfter")
    return same_groups and delay == f"{request.consolidateAfterSeconds}s"


def managed_groups(klass: dict[str, Any] | None) -> set[str]:
    return set((klass or {}).get("spec", {}).get("instanceGroups") or [])


def state_view(cluster: HyperPodCluster, pool: dict[str, Any] | None) -> AutoscalingStateView | None:
    config = cluster.autoscaling
    if config is None:
        return None
    delay = ((pool or {}).get("spec", {}).get("disruption") or {}).get("consolidateAfter")
    return AutoscalingStateView.model_validate(
        {
            "mode": "Disable" if config.mode is None else config.mode,
            "status": config.status,
            "failureMessage": config.failure_message,
            "consolidateAfterSeconds": int(str(delay).removesuffix("s"))
            if delay and str(delay)[:-1].isdigit()
            else None,
        }
    )
