"""StartUpdate: asks HyperPod to patch the nodes in rolling batches."""

from __future__ import annotations

from launchpod.contracts.hyperpod import UpdateSoftwareInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod, software
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    request = UpdateSoftwareInput.model_validate(doc.request)
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    cluster = sm.hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster to update.")
    if cluster["ClusterStatus"] == "SystemUpdating":
        return PhaseResult(message="An update is already rolling; following it.")
    groups = [g["InstanceGroupName"] for g in cluster.get("InstanceGroups", [])]
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


handler = phase("StartUpdate")(run)
