"""The autoscaling workflow's phases: HyperPod-managed Karpenter enabled (role, UpdateCluster, InService,
node class and pool) or disabled (the reverse)."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.phase_outputs import ClusterRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.instance_groups import autoscaling, specs
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult


def request_of(doc: WorkflowInput) -> AutoscalingInput:
    return AutoscalingInput.model_validate(doc.request)


def role_name(cluster: str) -> str:
    return control_plane.resource_name(settings().resource_prefix, cluster, "hp-autoscale")


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)


def cluster_role(doc: WorkflowInput) -> PhaseResult:
    """ClusterRole: the role HyperPod assumes to run Karpenter's node changes, trusted by
    hyperpod.sagemaker.amazonaws.com and allowed only BatchAddClusterNodes / BatchDeleteClusterNodes on
    this cluster."""
    if not request_of(doc).enabled:
        return PhaseResult(skipped=True, message="Disabling: the role is kept for the cluster's deletion.")
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster.")
    name, iam = role_name(doc.target), wiring.iam()
    arn = iam.ensure_role(
        name,
        autoscaling.TRUSTED_SERVICE,
        [],
        tags_of(doc),
        f"HyperPod autoscaling (Karpenter) role of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(name, "launchpod-karpenter-nodes", autoscaling.role_policy(cluster.arn))
    return PhaseResult(outputs=ClusterRoleOutput(roleArn=arn), message=arn)


def remove_karpenter(doc: WorkflowInput) -> PhaseResult:
    """RemoveKarpenter: disabling starts by removing the NodePool and the HyperpodNodeClass, so Karpenter
    stops scaling before HyperPod removes it."""
    request = request_of(doc)
    if request.enabled:
        return PhaseResult(skipped=True, message="Enabling: nothing to remove.")
    gone = []
    for obj in (autoscaling.node_pool(request.consolidateAfterSeconds), autoscaling.node_class([])):
        if wiring.kube().delete(doc.target, obj):
            gone.append(f"{obj['kind']}/{obj['metadata']['name']}")
    return PhaseResult(message=("Removed " + ", ".join(gone)) if gone else "No NodePool or HyperpodNodeClass left.")


def update_autoscaling(doc: WorkflowInput) -> PhaseResult:
    """UpdateAutoscaling: UpdateCluster with AutoScaling {Karpenter}, the cluster role and node recovery
    Automatic on a cluster created with continuous provisioning (the route refuses others: AWS documents the
    mode only at creation, so it is never switched here); the managed groups go to 0 (those with nodes only
    once the request confirmed it) and every other group is rebuilt from DescribeCluster through the one
    whitelist. Disabling sends AutoScaling Disable alone."""
    request, sm = request_of(doc), wiring.sagemaker()
    name = hyperpod.hyperpod_name(doc.target)
    cluster = sm.hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster.")
    mode = cluster.autoscaling.mode if cluster.autoscaling is not None else None
    wanted = "Enable" if request.enabled else "Disable"
    made = doc.output(ClusterRoleOutput)  # None when disabling: ClusterRole is skipped
    role = made.roleArn if made else None
    if (mode or "Disable") == wanted and (not request.enabled or cluster.cluster_role == role):
        return PhaseResult(message=f"AutoScaling is already {wanted}; following it.")
    if cluster.status != "InService":
        raise RetryableError(f"{doc.target} is {cluster.status}; UpdateCluster waits until InService.")
    params: dict[str, Any] = {"ClusterName": name, "AutoScaling": {"Mode": wanted, "AutoScalerType": "Karpenter"}}
    if request.enabled:
        params |= {
            "ClusterRole": role,
            "NodeRecovery": "Automatic",
            "InstanceGroups": autoscaling.managed_specs(
                specs.specs_for_update(cluster.instance_groups), request.instanceGroups
            ),
        }
    sm.update_cluster(params)
    return PhaseResult(
        message=f"UpdateCluster AutoScaling {wanted}"
        + (f" with {role}; {', '.join(request.instanceGroups)} start at 0." if request.enabled else ".")
    )


WAIT_AUTOSCALING = "WaitAutoscaling"


def wait_autoscaling(doc: WorkflowInput) -> PhaseResult:
    """WaitAutoscaling: polls DescribeCluster until AutoScaling is InService (enable) or gone (disable); a
    Failed status ends the operation with HyperPod's FailureMessage."""
    request = request_of(doc)
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    config = cluster.autoscaling if cluster is not None else None
    status = config.status if config is not None else None
    if config is not None and status == "Failed":
        raise PermanentError(f"HyperPod could not enable autoscaling: {config.failure_message or 'no reason given'}")
    if request.enabled and config is not None and config.mode == "Enable" and status == "InService":
        return PhaseResult(message="AutoScaling (Karpenter) is InService.")
    if not request.enabled and (config is None or (config.mode == "Disable" and status != "Deleting")):
        return PhaseResult(message="AutoScaling is off.")
    if doc.poll.get(WAIT_AUTOSCALING, 0) >= autoscaling.MAX_POLLS:
        raise PermanentError("AutoScaling is still settling after 30 minutes; check the cluster's events.")
    return PhaseResult(ready=False, wait=autoscaling.POLL_SECONDS, message=f"AutoScaling {status or 'not reported'}")


def apply_karpenter(doc: WorkflowInput) -> PhaseResult:
    """ApplyKarpenter: the HyperpodNodeClass naming the managed instance groups and a NodePool using it,
    applied once HyperPod's Karpenter (and its kinds) is InService."""
    request = request_of(doc)
    if not request.enabled:
        return PhaseResult(skipped=True, message="Disabled: nothing to apply.")
    kube = wiring.kube()
    kube.apply(doc.target, autoscaling.node_class(request.instanceGroups))
    kube.apply(doc.target, autoscaling.node_pool(request.consolidateAfterSeconds))
    return PhaseResult(
        message=f"HyperpodNodeClass {autoscaling.NAME} ({', '.join(request.instanceGroups)})"
        f" and NodePool {autoscaling.NAME}"
        f" (idle nodes go after {request.consolidateAfterSeconds} s)."
    )
