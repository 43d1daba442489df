"""DeleteHyperPod: deletes the HyperPod cluster Launchpod created and waits until it is gone."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.domain.clusters import hyperpod, teardown
from launchpod.domain.errors import LaunchpodError, PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "DeleteHyperPod"


def run(doc: WorkflowInput) -> PhaseResult:
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    found = sm.hyperpod_cluster(name)
    if found is None:
        return PhaseResult(
            outputs={"deleted": doc.poll.get(PHASE, 0) > 0},
            message="No HyperPod cluster remains.",
            skipped=doc.poll.get(PHASE, 0) == 0,
        )
    try:
        tags = sm.tags(found["ClusterArn"])
    except LaunchpodError:
        if sm.hyperpod_cluster(name) is None:  # gone between the two reads (ListTags then fails)
            return PhaseResult(outputs={"deleted": True}, message="No HyperPod cluster remains.")
        raise
    record = wiring.clusters().get(doc.target)
    arn = found["ClusterArn"]
    if not teardown.created_here(tags, doc.target, settings().resource_prefix, record, ownership.CREATED_HYPERPOD, arn):
        return PhaseResult(
            outputs={"kept": arn},
            skipped=True,
            message=f"{arn} was not created by Launchpod (its registry records no such create); left in place.",
        )
    if doc.poll.get(PHASE, 0) >= teardown.MAX_POLLS:
        raise PermanentError(f"HyperPod cluster {name} is still {found['ClusterStatus']} after an hour; check it.")
    if found["ClusterStatus"] != "Deleting":
        sm.delete_cluster(name)
    return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {found['ClusterArn']}.")


handler = phase(PHASE)(run)
