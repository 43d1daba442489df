"""WaitUpdated: polls until the rolling update has finished and the cluster is InService again."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod, software
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitUpdated"


def run(doc: WorkflowInput) -> PhaseResult:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target)) or {}
    status = cluster.get("ClusterStatus", "NOT_FOUND")
    groups = {g["InstanceGroupName"]: g.get("Status") for g in cluster.get("InstanceGroups", [])}
    if status == "InService" and "SystemUpdating" not in groups.values() and doc.poll.get(PHASE, 0) > 0:
        return PhaseResult(message="Every node is on the new software; InService.")
    if status in ("Failed", "NOT_FOUND", "RollingBack"):
        raise PermanentError(hyperpod.failure_hint(cluster.get("FailureMessage") or f"The cluster is {status}."))
    if doc.poll.get(PHASE, 0) >= software.MAX_POLLS:
        raise PermanentError("The software update is still rolling after 6 hours; check the cluster's events.")
    return PhaseResult(
        ready=False,
        wait=software.POLL_SECONDS,
        message=f"{status}: " + ", ".join(f"{g} {s}" for g, s in groups.items()),
    )


handler = phase(PHASE)(run)
