"""DeleteControlPlane: deletes the EKS cluster Launchpod created (add-ons, access entries and pod
identity associations go with it) and waits until it is gone; keeps its OIDC issuer for the next phase."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import DeleteControlPlaneOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.domain.clusters import teardown
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "DeleteControlPlane"


def run(doc: WorkflowInput) -> PhaseResult:
    eks = wiring.eks()
    found = eks.cluster(doc.target)
    earlier = doc.output(DeleteControlPlaneOutput)  # this phase's earlier polls
    issuer = earlier.issuer if earlier else None
    if found is None:
        return PhaseResult(
            outputs=DeleteControlPlaneOutput(issuer=issuer),
            message="No EKS cluster remains.",
            skipped=doc.poll.get(PHASE, 0) == 0 and issuer is None,
        )
    record = wiring.clusters().get(doc.target)
    prefix = settings().resource_prefix
    if not teardown.created_here(
        found.get("tags", {}), doc.target, prefix, record, ownership.CREATED_EKS, found["arn"]
    ):
        return PhaseResult(
            outputs=DeleteControlPlaneOutput(kept=found["arn"]),
            skipped=True,
            message=f"{found['arn']} was not created by Launchpod (no create recorded); left in place.",
        )
    if doc.poll.get(PHASE, 0) >= teardown.MAX_POLLS:
        raise PermanentError(f"EKS cluster {doc.target} is still {found['status']} after an hour; check it.")
    doc.record(DeleteControlPlaneOutput(issuer=found.get("identity", {}).get("oidc", {}).get("issuer")))
    if found["status"] != "DELETING":
        eks.delete_cluster(doc.target)
    return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {found['arn']}.")


handler = phase(PHASE)(run)
