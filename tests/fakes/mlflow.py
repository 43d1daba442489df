"""SageMaker managed MLflow in memory: the TrackingServers / MlflowUi / MlflowRuns ports (adapters.aws.mlflow)."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import LaunchpodError


class Servers:
    """SageMaker managed MLflow: tracking servers by name, and which names were described."""

    def __init__(self, servers: dict[str, dict[str, Any]]) -> None:
        self.servers, self.asked = servers, list[str]()

    def describe(self, name: str) -> dict[str, Any] | None:
        self.asked.append(name)
        return self.servers.get(name)


class UiServers(Servers):
    """SageMaker managed MLflow with presigned URLs: each one new, and which servers they were for."""

    def __init__(self, servers: dict[str, dict[str, Any]]) -> None:
        super().__init__(servers)
        self.presigned = list[str]()

    def presigned_url(self, name: str, expires: int = 300) -> str:
        self.presigned.append(name)
        return f"https://t-{name}.example/auth?authToken={len(self.presigned)}"


class Runs:
    """A tracking server's runs as its MLflow REST API answers: the newest run by (server ARN, experiment);
    ``error`` is raised instead (the API cannot be reached)."""

    def __init__(self, runs: dict[tuple[str, str], dict[str, Any]], error: LaunchpodError | None = None) -> None:
        self.runs, self.error, self.asked = runs, error, list[tuple[str, str]]()

    def latest_run(self, arn: str, experiment: str) -> dict[str, Any] | None:
        self.asked.append((arn, experiment))
        if self.error is not None:
            raise self.error
        return self.runs.get((arn, experiment))
