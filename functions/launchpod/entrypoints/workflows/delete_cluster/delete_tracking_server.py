"""DeleteTrackingServer: the MLflow tracking server Launchpod created for this cluster, deleted and
waited for before DeleteIdentity removes the role it runs with. A server the user picked (not tagged as
this cluster's) is left in place, and so are the artifacts under mlflow/ in the shared bucket.

AWS (DeleteMlflowTrackingServer; "Delete a tracking server",
https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-delete-tracking-server.html): the server goes
Deleting, then DescribeMlflowTrackingServer answers ResourceNotFound; its run metadata goes with it."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow
from launchpod.domain.clusters import teardown
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "DeleteTrackingServer"


def run(doc: WorkflowInput) -> PhaseResult:
    prefix, servers = settings().resource_prefix, wiring.mlflow()
    polls = doc.poll.get(PHASE, 0)
    deleting, kept = [], []
    for name in mlflow.teardown_names(wiring.clusters().get(doc.target), prefix, doc.target):
        found = servers.describe(name)
        if found is None:
            continue
        if not teardown.ours(wiring.sagemaker().tags(found["TrackingServerArn"]), doc.target, prefix):
            kept.append(name)
            continue
        if found.get("TrackingServerStatus") != "Deleting":
            servers.delete(name)
        deleting.append(name)
    left = f" Left in place (not created by Launchpod): {', '.join(kept)}." if kept else ""
    if deleting:
        if polls >= teardown.MAX_POLLS:
            raise PermanentError(f"Tracking server {', '.join(deleting)} is still deleting after an hour; check it.")
        return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {', '.join(deleting)}.{left}")
    message = ("Tracking server deleted." if polls else "No tracking server to delete.") + left
    return PhaseResult(outputs={"kept": kept}, message=message, skipped=polls == 0)


handler = phase(PHASE)(run)
