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

from typing import Any

from launchpod.domain import ownership
from launchpod.domain.clusters import control_plane

PREFIX = "mlflow"
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


def default_name(prefix: str, cluster: str) -> str:
    return control_plane.resource_name(prefix, cluster, "mlflow", limit=256)


def role_name(prefix: str, cluster: str) -> str:
    return control_plane.resource_name(prefix, cluster, "mlflow")


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


def env_of(job: dict[str, Any]) -> dict[str, str]:
    """The first container's environment of a HyperPodPyTorchJob or RayJob (worker) template."""
    spec = job.get("spec") or {}
    if "replicaSpecs" in spec:
        template = spec["replicaSpecs"][0]["template"]["spec"]
    else:
        template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
    return {e["name"]: str(e.get("value", "")) for e in template["containers"][0].get("env") or [] if "name" in e}
