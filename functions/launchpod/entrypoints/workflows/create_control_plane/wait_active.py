"""WaitActive: polls EKS until the cluster is ACTIVE; FAILED or too long ends the workflow."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitActive"


def run(doc: WorkflowInput) -> PhaseResult:
    cluster = wiring.eks().cluster(doc.target)
    if cluster is None:
        raise RetryableError(f"EKS does not show {doc.target} yet.")
    status = cluster["status"]
    polls = doc.poll.get(PHASE, 0)
    if status == "ACTIVE":
        return PhaseResult(
            outputs={"endpoint": cluster["endpoint"], "version": cluster.get("version")},
            message=f"ACTIVE after {polls} polls; Kubernetes {cluster.get('version')}.",
        )
    if status in ("FAILED", "DELETING"):
        raise PermanentError(control_plane.eks_failure_hint(f"EKS cluster {doc.target} is {status}."))
    if polls >= control_plane.MAX_ACTIVE_POLLS:
        minutes = polls * control_plane.ACTIVE_POLL_SECONDS // 60
        raise PermanentError(
            f"EKS cluster {doc.target} is still {status} after {minutes} minutes; "
            "check it in the EKS console, then retry."
        )
    return PhaseResult(
        ready=False, wait=control_plane.ACTIVE_POLL_SECONDS, message=f"EKS is {status} (check {polls + 1})."
    )


handler = phase(PHASE)(run)
