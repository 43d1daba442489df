"""OidcProvider: the IAM OIDC provider for the cluster's issuer (IRSA for add-ons that need it)."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import RetryableError
from launchpod.entrypoints.workflows.create_control_plane._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    cluster = wiring.eks().cluster(doc.target) or {}
    issuer = cluster.get("identity", {}).get("oidc", {}).get("issuer")
    if not issuer:
        raise RetryableError(f"EKS has not published the OIDC issuer of {doc.target} yet.")
    arn = wiring.iam().ensure_oidc_provider(issuer, tags_of(doc))
    return PhaseResult(outputs={"issuer": issuer, "providerArn": arn}, message=arn)


handler = phase("OidcProvider")(run)
