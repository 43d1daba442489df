"""WaitInService: reads HyperPod's status, after each wake-up of AwaitInService (the cluster-state
event, or its fallback timeout). InService ends the wait; Failed ends the workflow with HyperPod's
own FailureMessage and a hint at the likely cause."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitInService"


def run(doc: WorkflowInput) -> PhaseResult:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise RetryableError(f"SageMaker does not show the HyperPod cluster {doc.target} yet.")
    status, polls = cluster["ClusterStatus"], doc.poll.get(PHASE, 0)
    groups = cluster.get("InstanceGroups", [])
    counts = ", ".join(f"{g['InstanceGroupName']} {g.get('CurrentCount', 0)}/{g.get('TargetCount', 0)}" for g in groups)
    if status == "InService":
        return PhaseResult(
            outputs={"status": status, "nodeRecovery": cluster.get("NodeRecovery")}, message=f"InService: {counts}."
        )
    if status in ("Failed", "RollingBack", "Deleting"):
        raise PermanentError(hyperpod.failure_hint(cluster.get("FailureMessage") or f"HyperPod cluster is {status}."))
    if polls >= hyperpod.MAX_INSERVICE_POLLS:
        raise PermanentError(f"HyperPod cluster {doc.target} is still {status} after 90 minutes; check its events.")
    return PhaseResult(ready=False, message=f"HyperPod is {status}: {counts}.")


handler = phase(PHASE)(run)
