"""SageMaker managed MLflow for a cluster's training jobs: one tracking server per cluster (created or
picked), its artifact store under mlflow/ in the shared bucket, and the role it reaches the store with.

AWS ("Set up IAM permissions for MLflow",
https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-create-tracking-server-iam.html): the server
assumes a role trusted by sagemaker.amazonaws.com that may read and write the artifact store; the caller
passes it (iam:PassRole). Jobs log to it with the SageMaker MLflow plugin (sagemaker-mlflow), which takes
the server's ARN as MLFLOW_TRACKING_URI ("Integrate MLflow with your environment",
https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-track-experiments.html).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from launchpod.contracts.mlflow import ConfigureMlflowWorkflowRequest
from launchpod.domain import ownership
from launchpod.domain.clusters import control_plane
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.errors import Conflict
from launchpod.domain.operations import WorkflowPlan
from launchpod.domain.plan import Plan, Step


@dataclass(frozen=True)
class TrackingServer:
    """A tracking server as Launchpod reads it. The TrackingServers port (adapters.aws.mlflow) builds it from
    DescribeMlflowTrackingServer's answer
    (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeMlflowTrackingServer.html)."""

    name: str
    arn: str
    status: str  # TrackingServerStatus: Creating, Created, Updating, Deleting, CreateFailed, ...
    url: str | None = None  # TrackingServerUrl, the UI's address
    size: str | None = None  # TrackingServerSize: Small, Medium or Large
    artifact_store_uri: str | None = None
    mlflow_version: str | None = None


@dataclass(frozen=True)
class MlflowRun:
    """A run on a tracking server as Launchpod reads it: the MLflow REST API's RunInfo
    (https://mlflow.org/docs/latest/api_reference/rest-api.html#runinfo), built by the MlflowRuns port."""

    run_id: str
    experiment_id: str
    run_name: str | None = None


@dataclass(frozen=True)
class MetricPoint:
    """One value a run logged for a metric: the MLflow REST API's Metric
    (https://mlflow.org/docs/latest/api_reference/rest-api.html#metric), built by the MlflowRuns port."""

    key: str
    value: float
    timestamp_ms: int  # epoch milliseconds
    step: int = 0  # MLflow's default step; its JSON leaves a 0 out


PREFIX = "mlflow"
RECORD_ATTRIBUTE = "mlflowTrackingServer"  # the cluster record's attribute naming its tracking server
TRUSTED_SERVICE = "sagemaker.amazonaws.com"
TRACKING_URI, EXPERIMENT = "MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME"
# Statuses in which the server takes runs (or will, once Created).
USABLE = {
    "Creating",
    "Created",
    "Updating",
    "Updated",
    "Starting",
    "Started",
    "MaintenanceInProgress",
    "MaintenanceComplete",
}
FAILED = {"CreateFailed", "UpdateFailed", "StartFailed", "MaintenanceFailed"}


# (prefix, cluster) -> the tracking server Launchpod makes for a cluster (SageMaker allows 256 characters), and
# its role (IAM allows 64).
default_name = partial(control_plane.resource_name, purpose="mlflow", limit=256)
role_name = partial(control_plane.resource_name, purpose="mlflow")


def teardown_names(record: ClusterRecord | None, prefix: str, cluster: str) -> list[str]:
    """The tracking servers delete-cluster looks at: the one the cluster's record names and the default
    name (a server whose TrackingServer phase failed before it was recorded). Only those whose tags say
    Launchpod made them for this cluster are deleted; a picked server of the user's stays."""
    named = (record.mlflow_tracking_server if record else None) or ""
    return list(dict.fromkeys(n for n in (named, default_name(prefix, cluster)) if n))


def artifact_store(bucket: str) -> str:
    return f"s3://{bucket}/{PREFIX}/"


def role_policy(bucket: str, partition: str = "aws") -> dict[str, Any]:
    """The artifact store's objects and a listing of that prefix only."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": [f"arn:{partition}:s3:::{bucket}/{PREFIX}/*"],
            },
            {
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": [f"arn:{partition}:s3:::{bucket}"],
                "Condition": {"StringLike": {"s3:prefix": [f"{PREFIX}/*"]}},
            },
        ],
    }


def create_params(name: str, bucket: str, role_arn: str, size: str, cluster: str, prefix: str) -> dict[str, Any]:
    tags = ownership.aws_tags(cluster, prefix)
    return {
        "TrackingServerName": name,
        "ArtifactStoreUri": artifact_store(bucket),
        "RoleArn": role_arn,
        "TrackingServerSize": size,
        "AutomaticModelRegistration": False,
        "Tags": [{"Key": k, "Value": v} for k, v in sorted(tags.items())],
    }


def pod_env(tracking_server_arn: str, job: str) -> dict[str, str]:
    """What the pods need to log with the SageMaker MLflow plugin: the server's ARN as the tracking URI,
    and an experiment named after the job (a recipe's own MLFLOW_EXPERIMENT_NAME wins)."""
    return {TRACKING_URI: tracking_server_arn, EXPERIMENT: job}


def run_fragment(experiment_id: str, run_id: str) -> str:
    """The MLflow UI's route to a run (its single-page app routes by URL fragment)."""
    return f"#/experiments/{experiment_id}/runs/{run_id}"


def env_of(job: dict[str, Any]) -> dict[str, str]:
    """The first container's environment of a HyperPodPyTorchJob or RayJob (worker) template."""
    spec = job.get("spec") or {}
    if "replicaSpecs" in spec:
        template = spec["replicaSpecs"][0]["template"]["spec"]
    else:
        template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
    return {e["name"]: str(e.get("value", "")) for e in template["containers"][0].get("env") or [] if "name" in e}


# ---- the configure-mlflow workflow: the server's role and the server are made by workflow phases, so the
# internet-facing API function writes no IAM.
KIND = "configure-mlflow"
PHASES: tuple[tuple[str, str], ...] = (
    ("ServerRole", "The tracking server's role (trusted by SageMaker, reaching only mlflow/ in the shared bucket)"),
    ("TrackingServer", "CreateMlflowTrackingServer (or the existing server picked), recorded as the cluster's"),
    ("WaitTrackingServer", "Wait until the tracking server is Created (AWS: up to 25 minutes)"),
)
POLL_SECONDS = 60
MAX_POLLS = 45  # 45 minutes: AWS says up to 25


def plan(
    cluster: str, server_name: str, current: str | None, found: TrackingServer | None, size: str | None = None
) -> Plan:
    """Steps to make ``server_name`` the cluster's tracking server. ``current``: the server the cluster's
    record names; ``found``: ``server_name`` as SageMaker describes it (None: no such server); ``size``: the
    size the caller sent, if any. A server that cannot take runs is refused (409 naming the field), never
    picked; so is a sent size that is not the existing server's (Launchpod makes servers, it does not resize them)."""
    if found is not None:
        has = found.size
        if size is not None and has is not None and size != has:
            raise Conflict(
                f"Tracking server {server_name} exists and is {has}, not {size}; Launchpod does not resize a server. "
                f"Send size {has} (or leave it out) to use it, or choose another trackingServerName for a new one.",
                details=[
                    {
                        "field": "body.size",
                        "rule": "immutable",
                        "message": f"size is {has!r} on the existing server; it cannot change to {size!r}",
                    }
                ],
            )
        status = found.status
        if status not in USABLE:
            raise Conflict(
                f"Tracking server {server_name} is {status}; jobs cannot log to it. Choose another"
                " trackingServerName (a new one is created).",
                details=[{"field": "body.trackingServerName", "rule": "usable_server", "message": status}],
            )
        if current == server_name:
            return Plan(cluster, ())
        return Plan(
            cluster,
            (
                Step(
                    "pick", f"tracking server {server_name}", f"it exists ({status}); jobs log to it", "TrackingServer"
                ),
            ),
        )
    return Plan(
        cluster,
        (
            Step(
                "create", f"role {TRUSTED_SERVICE}", "the new server reaches its artifact store with it", "ServerRole"
            ),
            Step("create", f"tracking server {server_name}", "no server of that name exists", "TrackingServer"),
        ),
    )


def workflow(request: ConfigureMlflowWorkflowRequest, steps: Plan) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, steps.steps)
