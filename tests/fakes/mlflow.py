"""SageMaker managed MLflow in memory: the TrackingServers / MlflowUi / MlflowRuns ports (adapters.aws.mlflow)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.mlflow import metric_point, mlflow_run, tracking_server
from launchpod.domain.errors import LaunchpodError, PermanentError
from launchpod.domain.mlflow import MetricPoint, MlflowRun, TrackingServer

ARN = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/"


class Servers:
    """SageMaker managed MLflow: tracking servers by name as DescribeMlflowTrackingServer answers them (its name
    and ARN filled in where a test leaves them out, as SageMaker always gives both), read as the adapter reads
    them, with presigned URLs to their UI (each one new); ``asked`` is the names described, ``presigned`` the
    names a URL was made for. A URL is made only for a server that exists and is Created, as SageMaker makes them."""

    def __init__(self, servers: dict[str, dict[str, Any]] | None = None) -> None:
        self.servers, self.asked = servers if servers is not None else {}, list[str]()
        self.presigned, self.deleted = list[str](), list[str]()

    def add(
        self, name: str, status: str = "Created", artifact_store: str = "s3://sagemaker-shared/mlflow/"
    ) -> dict[str, Any]:
        """A server as CreateMlflowTrackingServer leaves it once ``status``: its size Small, SageMaker's default."""
        self.servers[name] = {
            "TrackingServerName": name,
            "TrackingServerArn": ARN + name,
            "TrackingServerStatus": status,
            "TrackingServerUrl": f"https://t-{name}.us-east-1.experiments.sagemaker.aws",
            "ArtifactStoreUri": artifact_store,
            "TrackingServerSize": "Small",
        }
        return self.servers[name]

    def delete(self, name: str) -> None:
        """DeleteMlflowTrackingServer: the server is Deleting until it is gone; one already gone is no error."""
        if name in self.servers:
            self.deleted.append(name)
            self.servers[name]["TrackingServerStatus"] = "Deleting"

    def describe(self, name: str) -> TrackingServer | None:
        self.asked.append(name)
        found = self.servers.get(name)
        if found is None:
            return None
        return tracking_server({"TrackingServerName": name, "TrackingServerArn": ARN + name, **found})

    def presigned_url(self, name: str, expires: int = 300) -> str:
        action = "sagemaker:CreatePresignedMlflowTrackingServerUrl failed"
        server = self.servers.get(name)
        if server is None:
            raise PermanentError(f"{action}: ResourceNotFound: Tracking server {name} does not exist.")
        if server.get("TrackingServerStatus", "Created") != "Created":
            raise PermanentError(
                f"{action}: ValidationException: Tracking server {name} is {server['TrackingServerStatus']}; "
                "wait until it is Created."
            )
        self.presigned.append(name)
        base = server.get("TrackingServerUrl") or f"https://t-{name}.example"
        return f"{base}/auth?authToken={len(self.presigned)}"


class Runs:
    """A tracking server's runs as its MLflow REST API answers: the newest run's RunInfo by (server ARN,
    experiment) and each metric's history as GetMetricHistory answers it, read as the adapter reads them;
    ``error`` is raised instead (the API cannot be reached)."""

    def __init__(self, runs: dict[tuple[str, str], dict[str, Any]], error: LaunchpodError | None = None) -> None:
        self.runs, self.error, self.asked = runs, error, list[tuple[str, str]]()
        self.history: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def latest_run(self, arn: str, experiment: str) -> MlflowRun | None:
        self.asked.append((arn, experiment))
        if self.error is not None:
            raise self.error
        found = self.runs.get((arn, experiment))
        return mlflow_run(found) if found is not None else None

    def log(self, arn: str, run_id: str, key: str, value: float, step: int, timestamp_ms: int) -> None:
        """What the job's MLflow client logs: one value of ``key`` at ``step``."""
        self.history.setdefault((arn, run_id, key), []).append(
            {"key": key, "value": value, "timestamp": timestamp_ms, "step": step}
        )

    def metric_history(self, arn: str, run_id: str, key: str) -> list[MetricPoint]:
        if self.error is not None:
            raise self.error
        return [metric_point(m) for m in self.history.get((arn, run_id, key), [])]
