"""HyperPod-managed Karpenter: the autoscaling workflow's phases, the cluster role, and the
HyperpodNodeClass and NodePool it applies. Karpenter here administers HyperPod instance groups only
(BatchAddClusterNodes / BatchDeleteClusterNodes), not EC2 instances or EKS node groups."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.instance_groups import AutoscalingStateView
from launchpod.domain.errors import InvalidInput
from launchpod.domain.operations import WorkflowPlan, role_for

KIND = "autoscaling"
PHASES: tuple[tuple[str, str], ...] = (
    ("ClusterRole", "IAM role HyperPod assumes to add and remove nodes (enable)"),
    ("RemoveKarpenter", "NodePool and HyperpodNodeClass removed (disable)"),
    ("UpdateAutoscaling", "UpdateCluster AutoScaling (Karpenter), ClusterRole, continuous provisioning"),
    ("WaitAutoscaling", "Wait until AutoScaling is InService (or gone)"),
    ("ApplyKarpenter", "HyperpodNodeClass and NodePool (enable)"),
)
NAME = "launchpod"
TRUSTED_SERVICE = "hyperpod.sagemaker.amazonaws.com"
POLL_SECONDS = 30
MAX_POLLS = 60
MANAGED_LABEL = {"app.kubernetes.io/managed-by": "launchpod"}


def plan(request: AutoscalingInput) -> WorkflowPlan:
    return WorkflowPlan(
        kind=KIND, target=request.name, request=request.model_dump(mode="json"), phases=PHASES, role=role_for(KIND)
    )


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


def check_groups(request: AutoscalingInput, described: dict[str, Any]) -> None:
    names = [g["InstanceGroupName"] for g in described.get("InstanceGroups", [])]
    unknown = [g for g in request.groups if g not in names]
    if unknown:
        raise InvalidInput(
            f"{request.name} has no instance group {', '.join(unknown)}; it has {', '.join(names) or 'none'}. "
            "Karpenter scales HyperPod instance groups only: add the group first.",
            field="body.groups",
            rule="instance_group_exists",
        )


def managed_specs(specs: list[dict[str, Any]], groups: list[str]) -> list[dict[str, Any]]:
    """A managed group starts at 0: Karpenter brings its nodes when pods need them."""
    return [{**s, "InstanceCount": 0} if s["InstanceGroupName"] in groups else s for s in specs]


def is_noop(
    request: AutoscalingInput, described: dict[str, Any], klass: dict[str, Any] | None, pool: dict[str, Any] | None
) -> bool:
    """Nothing to do: disabled and already off, or enabled, InService, with the same groups and delay."""
    config = described.get("AutoScaling") or {}
    if not request.enabled:
        return not config or config.get("Mode") == "Disable"
    if config.get("Mode") != "Enable" or config.get("Status") != "InService" or not klass or not pool:
        return False
    same_groups = (klass.get("spec") or {}).get("instanceGroups") == list(request.groups)
    delay = ((pool.get("spec") or {}).get("disruption") or {}).get("consolidateAfter")
    return same_groups and delay == f"{request.consolidateAfterSeconds}s"


def managed_groups(klass: dict[str, Any] | None) -> set[str]:
    return set((klass or {}).get("spec", {}).get("instanceGroups") or [])


def state_view(described: dict[str, Any], pool: dict[str, Any] | None) -> AutoscalingStateView | None:
    config = described.get("AutoScaling")
    if not config:
        return None
    delay = ((pool or {}).get("spec", {}).get("disruption") or {}).get("consolidateAfter")
    return AutoscalingStateView(
        mode=config.get("Mode", "Disable"),
        status=config.get("Status"),
        failureMessage=config.get("FailureMessage"),
        consolidateAfterSeconds=int(str(delay).removesuffix("s")) if delay and str(delay)[:-1].isdigit() else None,
    )
