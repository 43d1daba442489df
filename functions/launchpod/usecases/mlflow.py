"""A cluster's SageMaker managed MLflow tracking server, read for the MLflow and the jobs routes."""

from __future__ import annotations

from typing import Any

from launchpod.domain import mlflow
from launchpod.usecases.ports import ClusterRecords, TrackingServers


def server_of(name: str, *, clusters: ClusterRecords, servers: TrackingServers) -> dict[str, Any] | None:
    """The cluster's tracking server as SageMaker describes it; None when it has none (or it is gone)."""
    record = clusters.get(name) or {}
    server_name = record.get(mlflow.RECORD_ATTRIBUTE)
    return servers.describe(str(server_name)) if server_name else None
