"""A cluster's SageMaker managed MLflow tracking server over REST: create or pick one, and its state."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract

# CreateMlflowTrackingServer's TrackingServerName pattern (botocore's model: 1-256 characters).
_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$"


class ConfigureMlflowRequest(Contract):
    trackingServerName: str | None = Field(
        default=None,
        min_length=1,
        max_length=256,
        pattern=_NAME_PATTERN,
        description="an existing tracking server to pick, or the name of a new one; default launchpod-<cluster>",
    )
    size: Literal["Small", "Medium", "Large"] = Field(
        default="Small", description="a new server's size (AWS: Small for up to 25 users, Medium 50, Large 100)"
    )


class ConfigureMlflowInput(ConfigureMlflowRequest):
    """The catalog input: the cluster (path), the server (body) and dryRun (query)."""

    name: ClusterName
    dryRun: bool = Field(default=False, description="answer the plan and start nothing")


class ConfigureMlflowWorkflowRequest(Contract):
    """What the configure-mlflow workflow is handed: the server to create or pick, and its size."""

    name: ClusterName
    trackingServerName: str
    size: Literal["Small", "Medium", "Large"] = "Small"
    create: bool = Field(description="true: no server of that name exists, the workflow makes it and its role")


class MlflowRef(Contract):
    name: ClusterName


class MlflowView(Contract):
    cluster: ClusterName
    trackingServerName: str
    trackingServerArn: str
    status: str = Field(description="AWS's TrackingServerStatus: Creating, Created, CreateFailed, Deleting, ...")
    artifactStoreUri: str | None = None
    size: str | None = None
    mlflowVersion: str | None = None
    url: str | None = Field(
        default=None, description="a presigned URL to the MLflow UI, valid for 5 minutes and once; when Created"
    )
    message: str | None = None


class JobMlflowView(Contract):
    """Where a job logs to MLflow: the tracking server (its ARN is the pods' MLFLOW_TRACKING_URI), the
    experiment (MLFLOW_EXPERIMENT_NAME, one per job), the newest run in it once the job has logged one (its
    name is the framework's choice: Trainer's run_name, VERL's experiment_name), and a presigned URL that
    opens that run in the MLflow UI (the server's UI until there is a run)."""

    trackingServerArn: str = Field(description="the pods' MLFLOW_TRACKING_URI")
    experiment: str | None = None
    experimentId: str | None = Field(default=None, description="MLflow's id of the experiment, once it exists")
    runId: str | None = Field(default=None, description="the newest run of the experiment, once the job logged one")
    runName: str | None = None
    url: str | None = Field(
        default=None,
        description="a presigned URL (5 minutes, usable once) to the run in the MLflow UI, or to the UI without a run;"
        " none until the server is Created",
    )
