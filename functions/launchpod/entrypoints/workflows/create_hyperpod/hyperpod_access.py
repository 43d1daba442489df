"""HyperPodAccess: the EKS access entry through which HyperPod nodes join the cluster."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ExecutionRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.create_hyperpod._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    role_arn = doc.require(ExecutionRoleOutput).roleArn
    wiring.eks().ensure_access_entry(doc.target, role_arn, None, tags_of(doc), entry_type="HYPERPOD_LINUX")
    return PhaseResult(outputs={"principalArn": role_arn}, message=f"{role_arn} may join nodes (HYPERPOD_LINUX).")


handler = phase("HyperPodAccess")(run)
