"""ApplyKarpenter: the HyperpodNodeClass naming the managed instance groups and a NodePool using it,
applied once HyperPod's Karpenter (and its kinds) is InService."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.workflows.autoscaling._common import request_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase


def run(doc: WorkflowInput) -> PhaseResult:
    request = request_of(doc)
    if not request.enabled:
        return PhaseResult(skipped=True, message="Disabled: nothing to apply.")
    k8s.apply(doc.target, autoscaling.node_class(request.groups))
    k8s.apply(doc.target, autoscaling.node_pool(request.consolidateAfterSeconds))
    return PhaseResult(
        message=f"HyperpodNodeClass {autoscaling.NAME} ({', '.join(request.groups)}) and NodePool {autoscaling.NAME}"
        f" (idle nodes go after {request.consolidateAfterSeconds} s)."
    )


handler = phase("ApplyKarpenter")(run)
