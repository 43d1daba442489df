"""WaitTrackingServer: polls DescribeMlflowTrackingServer until the server takes runs (Created, or any
usable state past Creating); a failed server ends the operation with AWS's status."""

from __future__ import annotations

from launchpod.contracts.mlflow import ConfigureMlflowWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitTrackingServer"


def run(doc: WorkflowInput) -> PhaseResult:
    name = ConfigureMlflowWorkflowRequest.model_validate(doc.request).trackingServerName
    found = wiring.mlflow().describe(name)
    if found is None:
        raise PermanentError(f"Tracking server {name} disappeared while being created; PUT the configuration again.")
    status = str(found.get("TrackingServerStatus"))
    if status in mlflow.FAILED or status not in mlflow.USABLE:
        raise PermanentError(
            f"Tracking server {name} is {status}; delete it in SageMaker or PUT another trackingServerName."
        )
    if status != "Creating":
        return PhaseResult(message=f"Tracking server {name} is {status}.")
    if doc.poll.get(PHASE, 0) >= mlflow.MAX_POLLS:
        raise PermanentError(f"Tracking server {name} is still Creating after {mlflow.MAX_POLLS} minutes.")
    return PhaseResult(ready=False, wait=mlflow.POLL_SECONDS, message=f"{name}: Creating (AWS: up to 25 minutes)")


handler = phase(PHASE)(run)
