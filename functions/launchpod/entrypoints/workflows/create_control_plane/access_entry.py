"""AccessEntry: gives Launchpod's own role cluster-admin through an EKS access entry, so the
phases and operations that use the Kubernetes API can reach it."""

from __future__ import annotations

from launchpod.adapters.aws.sts import caller_principal_arn
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.entrypoints.workflows.create_control_plane._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    principal = settings().kube_role_arn or caller_principal_arn()
    wiring.eks().ensure_access_entry(doc.target, principal, control_plane.CLUSTER_ADMIN_POLICY, tags_of(doc))
    return PhaseResult(
        outputs={"principalArn": principal, "policyArn": control_plane.CLUSTER_ADMIN_POLICY},
        message=f"{principal} has AmazonEKSClusterAdminPolicy on the cluster.",
    )


handler = phase("AccessEntry")(run)
