"""Deregister: Launchpod forgets the cluster (its operations stay, as history)."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    wiring.clusters().forget(doc.target)
    return PhaseResult(message=f"{doc.target} is no longer in the registry.")


handler = phase("Deregister")(run)
