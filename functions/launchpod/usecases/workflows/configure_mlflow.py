"""The configure-mlflow workflow's phases: a cluster's SageMaker managed MLflow tracking server, its role, and
the record of it."""

from __future__ import annotations

from launchpod.contracts.mlflow import ConfigureMlflowWorkflowRequest
from launchpod.contracts.phase_outputs import ServerRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow, ownership
from launchpod.domain.errors import LaunchpodError, PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult

POLICY_NAME = "launchpod-mlflow-artifacts"
WAIT_TRACKING_SERVER = "WaitTrackingServer"


def server_role(doc: WorkflowInput) -> PhaseResult:
    """ServerRole: the new tracking server's role, trusted by SageMaker, whose inline policy reaches only
    mlflow/ in the shared bucket (re-runnable: ensure_role and PutRolePolicy change nothing the second time).
    Skipped when an existing server is picked: it has its own role."""
    request = ConfigureMlflowWorkflowRequest.model_validate(doc.request)
    if not request.create:
        return PhaseResult(
            skipped=True, message=f"Tracking server {request.trackingServerName} exists; no role to make."
        )
    prefix, bucket = settings().resource_prefix, settings().bucket
    role, iam = mlflow.role_name(prefix, doc.target), wiring.iam()
    arn = iam.ensure_role(
        role,
        mlflow.TRUSTED_SERVICE,
        [],
        ownership.aws_tags(doc.target, prefix),
        f"MLflow tracking server of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(role, POLICY_NAME, mlflow.role_policy(bucket))
    return PhaseResult(
        outputs=ServerRoleOutput(roleArn=arn), message=f"{arn}: reaches {mlflow.artifact_store(bucket)} only"
    )


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


def tracking_server(doc: WorkflowInput) -> PhaseResult:
    """TrackingServer: CreateMlflowTrackingServer with the role ServerRole made (a server already there, from
    an earlier attempt or picked, is not created again), then the cluster's record names it."""
    request = ConfigureMlflowWorkflowRequest.model_validate(doc.request)
    name = request.trackingServerName
    found = wiring.mlflow().describe(name)
    if found is None:
        if not request.create:
            raise PermanentError(f"Tracking server {name} is gone; PUT the MLflow configuration again.")
        _create(doc, request)
        found = wiring.mlflow().describe(name)
    status = str(found.status if found else None)
    if status not in mlflow.USABLE:
        raise PermanentError(f"Tracking server {name} is {status}; jobs cannot log to it. Choose another name.")
    record = wiring.clusters().get(doc.target)
    if record is None:
        raise PermanentError(f"{doc.target} is no longer registered with Launchpod.")
    wiring.clusters().register(doc.target, source=record.source, region=record.region, mlflow_tracking_server=name)
    made = "created" if request.create else "picked"
    return PhaseResult(message=f"Tracking server {name} {made} ({status}); jobs submitted from now on log to it.")


def wait_tracking_server(doc: WorkflowInput) -> PhaseResult:
    """WaitTrackingServer: polls DescribeMlflowTrackingServer until the server takes runs (Created, or any
    usable state past Creating); a failed server ends the operation with AWS's status."""
    name = ConfigureMlflowWorkflowRequest.model_validate(doc.request).trackingServerName
    found = wiring.mlflow().describe(name)
    if found is None:
        raise PermanentError(f"Tracking server {name} disappeared while being created; PUT the configuration again.")
    status = found.status
    if status in mlflow.FAILED or status not in mlflow.USABLE:
        raise PermanentError(
            f"Tracking server {name} is {status}; delete it in SageMaker or PUT another trackingServerName."
        )
    if status != "Creating":
        return PhaseResult(message=f"Tracking server {name} is {status}.")
    if doc.poll.get(WAIT_TRACKING_SERVER, 0) >= mlflow.MAX_POLLS:
        raise PermanentError(f"Tracking server {name} is still Creating after {mlflow.MAX_POLLS} minutes.")
    return PhaseResult(ready=False, wait=mlflow.POLL_SECONDS, message=f"{name}: Creating (AWS: up to 25 minutes)")
