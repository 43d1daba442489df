"""Register: records the cluster as imported, with its EKS ARN, once Launchpod can reach it."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    eks = wiring.eks().cluster(doc.target) or {}
    wiring.clusters().register(doc.target, source="imported", region=settings().region, eksArn=eks.get("arn"))
    return PhaseResult(outputs={"eksArn": eks.get("arn")}, message=f"{doc.target} is registered as imported.")


handler = phase("Register")(run)
