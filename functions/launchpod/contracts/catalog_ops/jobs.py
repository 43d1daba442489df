"""Training jobs, their logs, and the SageMaker managed MLflow server they log to."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry
from launchpod.contracts.common import Role
from launchpod.contracts.jobs import (
    DeleteJobInput,
    DeleteJobView,
    JobListView,
    JobLogsInput,
    JobLogsView,
    JobRef,
    JobView,
    ListJobsInput,
    SubmitJobInput,
)
from launchpod.contracts.mlflow import ConfigureMlflowInput, MlflowRef, MlflowView
from launchpod.contracts.operations import (
    OperationAcceptedView,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "submit_job",
        "POST",
        "/api/clusters/{name}/jobs",
        "Submit a training job: kind pytorch (a HyperPodPyTorchJob run by the HyperPod training operator, with its"
        " restart policy, log-pattern hang detection, optional elastic or checkpointless recovery) or ray (a KubeRay"
        " RayJob), from a"
        " recipe (pytorch-torchrun, llama-factory, ms-swift-sft, ms-swift-grpo, verl-ppo) or a custom image and"
        " command, on an instance group; every pod takes its node's GPUs and EFA. Applied to the cluster at once"
        " (effective at once): follow it with get_job until Succeeded or Failed, and read get_job_logs. dryRun true"
        " makes every check and answers the plan (the job, and the pods its operator starts), creating nothing.",
        SubmitJobInput,
        JobView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "list_jobs",
        "GET",
        "/api/clusters/{name}/jobs",
        "List the cluster's training jobs (HyperPodPyTorchJob and RayJob) with their status.",
        ListJobsInput,
        JobListView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_job",
        "GET",
        "/api/clusters/{name}/jobs/{jobName}",
        "Get a training job: status and reason, the restart budget used and left (process restarts, full job"
        " restarts, retries), hang detections, its pods with node and zone, and recent events.",
        JobRef,
        JobView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    CatalogEntry(
        "delete_job",
        "DELETE",
        "/api/clusters/{name}/jobs/{jobName}",
        "Delete a training job and its pods (effective at once); its checkpoints and outputs under jobs/<job>/ in"
        " the shared bucket are kept. Give the job's name again as confirm. dryRun true answers the plan (the job"
        " and its pods), deleting nothing; a job that is not there is 404.",
        DeleteJobInput,
        DeleteJobView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_job_logs",
        "GET",
        "/api/clusters/{name}/jobs/{jobName}/logs",
        "Read a training job's pod log: pod (default the first), container (default the first), the last tail"
        " lines, only lines from the last since seconds. Once a pod (or the whole job) is gone, the log comes from"
        " CloudWatch Logs when the observability feature is on.",
        JobLogsInput,
        JobLogsView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    CatalogEntry(
        "configure_mlflow",
        "PUT",
        "/api/clusters/{name}/mlflow",
        "Create or pick the cluster's SageMaker managed MLflow tracking server (trackingServerName: an existing"
        " server to pick, or a new one's name; default launchpod-<cluster>-mlflow; size Small, Medium or Large)."
        " A new server stores its artifacts under mlflow/ in the shared bucket, with a role of its own. Starts the"
        " configure-mlflow operation, which makes the role and the server and ends when the server is Created"
        " (AWS: up to 25 minutes); NOOP when the cluster already uses that server; dryRun true answers the plan."
        " Jobs submitted afterwards log to it (MLFLOW_TRACKING_URI).",
        ConfigureMlflowInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("configure-mlflow",),
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_mlflow",
        "GET",
        "/api/clusters/{name}/mlflow",
        "Get the cluster's MLflow tracking server: its status (Creating, Created, ...), artifact store and, once"
        " Created, a presigned URL to the MLflow UI (valid 5 minutes, usable once).",
        MlflowRef,
        MlflowView,
        Role.VIEWER,
        tags=("jobs",),
    ),
)
