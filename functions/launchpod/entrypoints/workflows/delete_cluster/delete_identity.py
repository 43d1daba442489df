"""DeleteIdentity: the IAM roles and the OIDC provider Launchpod created for this cluster. The roles are
every ``<prefix>-<cluster>-*`` role carrying the cluster's tags, the managed features' pod identity roles
included (training and inference operators, observability: its AWS managed policies are detached first).
Container Insights' log group /aws/containerinsights/<cluster>/application is the user's data (their
jobs' logs) and is deliberately left in place; CloudWatch Logs' retention or the user deletes it."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import DeleteControlPlaneOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.delete_cluster._common import our_tags
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    iam, tags = wiring.iam(), our_tags(doc.target)
    roles = iam.delete_tagged_roles(f"{settings().resource_prefix}-{doc.target}-", tags)
    made = doc.output(DeleteControlPlaneOutput)
    issuer = made.issuer if made else None
    provider = iam.delete_oidc_provider(issuer, tags) if issuer else None
    gone = roles + ([provider] if provider else [])
    return PhaseResult(outputs={"deleted": gone}, message="Deleted " + (", ".join(gone) or "nothing"), skipped=not gone)


handler = phase("DeleteIdentity")(run)
