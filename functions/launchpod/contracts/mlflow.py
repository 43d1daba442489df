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
    experiment (MLFLOW_EXPERIMENT_NAME, one per job) and a presigned URL to the server's UI. The run's name is
    the framework's choice (Trainer's run_name, VERL's experiment_name): find it in the job's experiment."""

    trackingServer: str
    experiment: str | None = None
    url: str | None = None
