"""import-cluster's own phase: access entry -> verify access (create-control-plane's phases, reused) ->
register."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult


def register(doc: WorkflowInput) -> PhaseResult:
    """Register: records the cluster as imported, with its EKS ARN, once Launchpod can reach it."""
    eks = wiring.eks().cluster(doc.target)
    arn = eks.arn if eks else None
    wiring.clusters().register(doc.target, source="imported", region=wiring.region(), eks_arn=arn)
    return PhaseResult(outputs={"eksArn": arn}, message=f"{doc.target} is registered as imported.")
