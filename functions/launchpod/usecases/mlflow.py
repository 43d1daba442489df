"""A cluster's SageMaker managed MLflow tracking server: create or pick one (the configure-mlflow workflow)
and read its state with a presigned URL to its UI; the jobs use case reads the server through ``server_of``.

Configure plans against the real state (the server the cluster's record names, the asked server as
SageMaker describes it): NOOP when the cluster already uses it, 409 when it cannot take runs, otherwise the
workflow makes the server's role and the server (or picks the existing one) and follows it to Created. The
API function writes no IAM: the workflow's phases do, as for every other role Launchpod makes."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.mlflow import ConfigureMlflowRequest, ConfigureMlflowWorkflowRequest, MlflowView
from launchpod.contracts.operations import OperationView
from launchpod.domain import mlflow
from launchpod.domain import operations as ops
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.errors import NotFound, next_step
from launchpod.usecases.ports import ClusterRecords, MlflowUi, TrackingServers
from launchpod.usecases.proposal import Proposal


@dataclass(frozen=True)
class MlflowPorts:
    clusters: ClusterRecords
    servers: MlflowUi
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    prefix: str  # Launchpod's resource prefix: the default server name is made from it


def real() -> MlflowPorts:
    """The deployed adapters (runtime.wiring)."""
    from launchpod.runtime import wiring
    from launchpod.runtime.settings import settings

    return MlflowPorts(
        clusters=wiring.clusters(),
        servers=wiring.mlflow(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        prefix=settings().resource_prefix,
    )


def server_of(name: str, *, clusters: ClusterRecords, servers: TrackingServers) -> mlflow.TrackingServer | None:
    """The cluster's tracking server as SageMaker describes it; None when it has none (or it is gone)."""
    record = clusters.get(name)
    server_name = record.mlflow_tracking_server if record else None
    return servers.describe(server_name) if server_name else None


def _record(name: str, ports: MlflowPorts) -> ClusterRecord:
    record = ports.clusters.get(name)
    if record is None:
        raise NotFound(f"No cluster {name} is registered with Launchpod; create or import it first.")
    return record


def configure(name: str, body: ConfigureMlflowRequest, who: ops.Principal, *, ports: MlflowPorts) -> Proposal:
    """The plan to make ``body.trackingServerName`` (or the default name) the cluster's server, and how to
    start the configure-mlflow workflow that carries it out."""
    record = _record(name, ports)
    server_name = body.trackingServerName or mlflow.default_name(ports.prefix, name)
    found = ports.servers.describe(server_name)
    sent_size = body.size if "size" in body.model_fields_set else None
    plan = mlflow.plan(name, server_name, record.mlflow_tracking_server, found, sent_size)
    request = ConfigureMlflowWorkflowRequest(
        name=name, trackingServerName=server_name, size=body.size, create=found is None
    )

    def start() -> OperationView:
        operation, _ = ops.submit(ports.operations, ports.workflows, mlflow.workflow(request, plan), who)
        return operation

    return Proposal(plan, start, noop=f"{name} already logs to tracking server {server_name}; no changes.")


def get(name: str, *, ports: MlflowPorts) -> MlflowView:
    """The cluster's server, with a presigned URL to its UI once it is Created and what to do otherwise."""
    _record(name, ports)
    server = server_of(name, clusters=ports.clusters, servers=ports.servers)
    if server is None:
        raise NotFound(
            f"{name} has no MLflow tracking server; set one up first (create one, or pick one of the account's).",
            details=[next_step(f"PUT /api/clusters/{name}/mlflow")],
        )
    status = server.status
    url, message = None, None
    if status == "Created":
        url = ports.servers.presigned_url(server.name)
    elif status == "Creating":
        message = "AWS is creating the tracking server (up to 25 minutes); ask again until it is Created."
    elif status in mlflow.FAILED:
        message = f"The tracking server is {status}; delete it in SageMaker or PUT another trackingServerName."
    return MlflowView(
        cluster=name,
        trackingServerName=server.name,
        trackingServerArn=server.arn,
        status=status,
        artifactStoreUri=server.artifact_store_uri,
        size=server.size,
        mlflowVersion=server.mlflow_version,
        url=url,
        message=message,
    )
