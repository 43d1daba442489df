"""DeleteLoadBalancers: the cluster's load-balanced Services and Ingresses deleted and waited for before
anything else goes (usecases.teardown.remove_load_balancers)."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import teardown
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.usecases import teardown as cases

PHASE = "DeleteLoadBalancers"


def run(doc: WorkflowInput) -> PhaseResult:
    found = cases.remove_load_balancers(doc.target, doc.poll.get(PHASE, 0), ports=cases.real())
    if not found.done:
        return PhaseResult(ready=False, wait=teardown.LB_POLL_SECONDS, message=found.message)
    return PhaseResult(message=found.message, skipped=found.skipped)


handler = phase(PHASE)(run)
