"""ClusterRole: the IAM role EKS assumes to manage the cluster."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ClusterRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.entrypoints.workflows.create_control_plane._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    name = control_plane.resource_name(settings().resource_prefix, doc.target, "eks")
    arn = wiring.iam().ensure_role(
        name,
        "eks.amazonaws.com",
        [control_plane.EKS_CLUSTER_POLICY],
        tags_of(doc),
        f"EKS cluster role of {doc.target}, created by Launchpod",
    )
    return PhaseResult(outputs=ClusterRoleOutput(roleArn=arn, roleName=name), message=arn)


handler = phase("ClusterRole")(run)
