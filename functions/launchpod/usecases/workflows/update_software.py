"""The update-software workflow's phases: UpdateClusterSoftware in rolling batches, then wait until
InService."""

from __future__ import annotations

from launchpod.contracts.hyperpod import UpdateSoftwareInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod, software
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult


def start_update(doc: WorkflowInput) -> PhaseResult:
    """StartUpdate: asks HyperPod to patch the nodes in rolling batches."""
    request = UpdateSoftwareInput.model_validate(doc.request)
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    cluster = sm.hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster to update.")
    if cluster.status == "SystemUpdating":
        return PhaseResult(message="An update is already rolling; following it.")
    groups = [g.name for g in cluster.instance_groups]
    unknown = sorted(set(request.instanceGroups or []) - set(groups))
    if unknown:
        raise PermanentError(f"{doc.target} has no instance group {', '.join(unknown)}; it has {', '.join(groups)}.")
    sm.update_software(software.parameters(request, name, groups))
    batch = request.maxBatchSize
    unit = "%" if batch.type == "CAPACITY_PERCENTAGE" else " nodes"
    return PhaseResult(
        message=f"Rolling update of {', '.join(request.instanceGroups or groups)}: "
        f"{batch.value}{unit} at a time, {request.waitIntervalSeconds} s between batches."
    )


WAIT_UPDATED = "WaitUpdated"


def wait_updated(doc: WorkflowInput) -> PhaseResult:
    """WaitUpdated: polls until the rolling update has finished and the cluster is InService again."""
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    status = cluster.status if cluster is not None else "NOT_FOUND"
    groups = {g.name: g.status for g in cluster.instance_groups} if cluster is not None else {}
    if status == "InService" and "SystemUpdating" not in groups.values() and doc.poll.get(WAIT_UPDATED, 0) > 0:
        return PhaseResult(message="Every node is on the new software; InService.")
    if status in ("Failed", "NOT_FOUND", "RollingBack"):
        raise PermanentError(
            hyperpod.failure_hint((cluster.failure_message if cluster else None) or f"The cluster is {status}.")
        )
    if doc.poll.get(WAIT_UPDATED, 0) >= software.MAX_POLLS:
        raise PermanentError("The software update is still rolling after 6 hours; check the cluster's events.")
    return PhaseResult(
        ready=False,
        wait=software.POLL_SECONDS,
        message=f"{status}: " + ", ".join(f"{g} {s}" for g, s in groups.items()),
    )
