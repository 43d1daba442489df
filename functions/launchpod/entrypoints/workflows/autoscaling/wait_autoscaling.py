"""WaitAutoscaling: polls DescribeCluster until AutoScaling is InService (enable) or gone (disable); a
Failed status ends the operation with HyperPod's FailureMessage."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.workflows.autoscaling._common import request_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitAutoscaling"


def run(doc: WorkflowInput) -> PhaseResult:
    request = request_of(doc)
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target)) or {}
    config = cluster.get("AutoScaling") or {}
    status = config.get("Status")
    if status == "Failed":
        raise PermanentError(
            f"HyperPod could not enable autoscaling: {config.get('FailureMessage') or 'no reason given'}"
        )
    if request.enabled and config.get("Mode") == "Enable" and status == "InService":
        return PhaseResult(message="AutoScaling (Karpenter) is InService.")
    if not request.enabled and (not config or (config.get("Mode") == "Disable" and status != "Deleting")):
        return PhaseResult(message="AutoScaling is off.")
    if doc.poll.get(PHASE, 0) >= autoscaling.MAX_POLLS:
        raise PermanentError("AutoScaling is still settling after 30 minutes; check the cluster's events.")
    return PhaseResult(ready=False, wait=autoscaling.POLL_SECONDS, message=f"AutoScaling {status or 'not reported'}")


handler = phase(PHASE)(run)
