"""TieredStorage: HyperPod's TieredStorageConfig set with UpdateCluster (Mode Enable with the memory share,
or Disable), then awaited until the cluster is InService again."""

from __future__ import annotations

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import features
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "TieredStorage"


def run(doc: WorkflowInput) -> PhaseResult:
    request = UpdateFeaturesInput.model_validate(doc.request)
    wanted = request.tieredCheckpointing
    if wanted is None:
        return PhaseResult(skipped=True, message="The request does not change tiered checkpointing.")
    name = hyperpod.hyperpod_name(doc.target)
    cluster = wiring.sagemaker().hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster; tiered checkpointing is a HyperPod setting.")
    config = cluster.get("TieredStorageConfig") or {}
    mode = "Enable" if wanted.enabled else "Disable"
    current = config.get("InstanceMemoryAllocationPercentage")
    percentage = None
    if wanted.enabled:
        percentage = wanted.memoryPercentage or current or features.checkpointing().defaultMemoryPercentage
    matches = config.get("Mode", "Disable") == mode and (percentage is None or current == percentage)
    status = cluster.get("ClusterStatus")
    if matches and status == "InService":
        share = f" with {percentage}% of each node's memory" if percentage else ""
        return PhaseResult(
            outputs={"mode": mode, "memoryPercentage": percentage}, message=f"TieredStorageConfig {mode}{share}."
        )
    if status in ("Failed", "Deleting", "RollingBack"):
        raise PermanentError(f"The HyperPod cluster {doc.target} is {status}; tiered checkpointing cannot change now.")
    if doc.poll.get(PHASE, 0) >= features.MAX_POLLS:
        raise PermanentError(f"The HyperPod cluster {doc.target} is still {status} after 20 minutes; retry.")
    if not matches and status == "InService":
        wiring.sagemaker().update_tiered_storage(name, mode, percentage)
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"UpdateCluster TieredStorageConfig {mode}")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"HyperPod is {status}")


handler = phase(PHASE)(run)
