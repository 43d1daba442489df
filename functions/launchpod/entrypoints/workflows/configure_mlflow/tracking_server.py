"""TrackingServer: CreateMlflowTrackingServer with the role ServerRole made (a server already there, from
an earlier attempt or picked, is not created again), then the cluster's record names it."""

from __future__ import annotations

from launchpod.contracts.mlflow import ConfigureMlflowWorkflowRequest
from launchpod.contracts.phase_outputs import ServerRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow
from launchpod.domain.errors import LaunchpodError, PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def _create(doc: WorkflowInput, request: ConfigureMlflowWorkflowRequest) -> None:
    made = doc.output(ServerRoleOutput)
    role_arn = made.roleArn if made else None
    if not role_arn:
        raise PermanentError("ServerRole made no role for the new tracking server; retry the operation.")
    prefix, bucket = settings().resource_prefix, settings().bucket
    params = mlflow.create_params(request.trackingServerName, bucket, role_arn, request.size, doc.target, prefix)
    try:
        wiring.mlflow().create(params)
    except LaunchpodError as exc:
        if exc.extra.get("aws_code") == "ResourceLimitExceeded":
            raise PermanentError(
                "The account is at its quota of MLflow tracking servers; pick an existing one with"
                f" trackingServerName, delete one in SageMaker, or ask for a higher quota ({exc.message})."
            ) from exc
        raise


def run(doc: WorkflowInput) -> PhaseResult:
    request = ConfigureMlflowWorkflowRequest.model_validate(doc.request)
    name = request.trackingServerName
    found = wiring.mlflow().describe(name)
    if found is None:
        if not request.create:
            raise PermanentError(f"Tracking server {name} is gone; PUT the MLflow configuration again.")
        _create(doc, request)
        found = wiring.mlflow().describe(name)
    status = str((found or {}).get("TrackingServerStatus"))
    if status not in mlflow.USABLE:
        raise PermanentError(f"Tracking server {name} is {status}; jobs cannot log to it. Choose another name.")
    record = wiring.clusters().get(doc.target)
    if record is None:
        raise PermanentError(f"{doc.target} is no longer registered with Launchpod.")
    wiring.clusters().register(
        doc.target, source=record["source"], region=record["region"], **{mlflow.RECORD_ATTRIBUTE: name}
    )
    made = "created" if request.create else "picked"
    return PhaseResult(message=f"Tracking server {name} {made} ({status}); jobs submitted from now on log to it.")


handler = phase("TrackingServer")(run)
