"""RemoveKarpenter: disabling starts by removing the NodePool and the HyperpodNodeClass, so Karpenter
stops scaling before HyperPod removes it."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.workflows.autoscaling._common import request_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase


def run(doc: WorkflowInput) -> PhaseResult:
    request = request_of(doc)
    if request.enabled:
        return PhaseResult(skipped=True, message="Enabling: nothing to remove.")
    gone = []
    for obj in (autoscaling.node_pool(request.consolidateAfterSeconds), autoscaling.node_class([])):
        if k8s.delete(doc.target, obj):
            gone.append(f"{obj['kind']}/{obj['metadata']['name']}")
    return PhaseResult(message=("Removed " + ", ".join(gone)) if gone else "No NodePool or HyperpodNodeClass left.")


handler = phase("RemoveKarpenter")(run)
