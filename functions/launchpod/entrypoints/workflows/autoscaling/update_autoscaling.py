"""UpdateAutoscaling: UpdateCluster with AutoScaling {Karpenter}, the cluster role and node recovery Automatic
on a cluster created with continuous provisioning (the route refuses others: AWS documents the mode only at
creation, so it is never switched here); the managed groups go to 0 (those with nodes only once the request
confirmed it) and every other group is rebuilt from DescribeCluster through the one whitelist. Disabling sends
AutoScaling Disable alone."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.phase_outputs import ClusterRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.instance_groups import autoscaling, specs
from launchpod.entrypoints.workflows.autoscaling._common import request_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    request, sm = request_of(doc), wiring.sagemaker()
    name = hyperpod.hyperpod_name(doc.target)
    cluster = sm.hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster.")
    config = cluster.get("AutoScaling") or {}
    wanted = "Enable" if request.enabled else "Disable"
    made = doc.output(ClusterRoleOutput)  # None when disabling: ClusterRole is skipped
    role = made.roleArn if made else None
    if (config.get("Mode") or "Disable") == wanted and (not request.enabled or cluster.get("ClusterRole") == role):
        return PhaseResult(message=f"AutoScaling is already {wanted}; following it.")
    if cluster.get("ClusterStatus") != "InService":
        raise RetryableError(f"{doc.target} is {cluster.get('ClusterStatus')}; UpdateCluster waits until InService.")
    params: dict[str, Any] = {"ClusterName": name, "AutoScaling": {"Mode": wanted, "AutoScalerType": "Karpenter"}}
    if request.enabled:
        params |= {
            "ClusterRole": role,
            "NodeRecovery": "Automatic",
            "InstanceGroups": autoscaling.managed_specs(
                specs.specs_for_update(list(cluster.get("InstanceGroups", []))), request.groups
            ),
        }
    sm.update_cluster(params)
    return PhaseResult(
        message=f"UpdateCluster AutoScaling {wanted}"
        + (f" with {role}; {', '.join(request.groups)} start at 0." if request.enabled else ".")
    )


handler = phase("UpdateAutoscaling")(run)
