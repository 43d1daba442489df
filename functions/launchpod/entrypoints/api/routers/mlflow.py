"""A cluster's SageMaker managed MLflow tracking server: create or pick one (PUT, the configure-mlflow
workflow) and read its state and a presigned URL to its UI (GET).

PUT plans against the real state (the server the cluster's record names, the asked server as SageMaker
describes it): NOOP when the cluster already uses it, 409 when it cannot take runs, otherwise the
workflow makes the server's role and the server (or picks the existing one) and follows it to Created.
This function writes no IAM: the workflow's phases do, as for every other role Launchpod makes."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName
from launchpod.contracts.mlflow import ConfigureMlflowRequest, ConfigureMlflowWorkflowRequest, MlflowView
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import mlflow
from launchpod.domain import operations as ops
from launchpod.domain.errors import NotFound
from launchpod.entrypoints.api.routing import planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import mlflow as mlflow_cases

router = APIGatewayRouter()
SERVER_ATTRIBUTE = mlflow.RECORD_ATTRIBUTE


def _record(name: str) -> dict[str, Any]:
    record = wiring.clusters().get(name)
    if record is None:
        raise NotFound(f"No cluster {name} is registered with Launchpod; create or import it first.")
    return record


def _view(name: str, server: dict[str, Any]) -> MlflowView:
    status = str(server.get("TrackingServerStatus") or "")
    url, message = None, None
    if status == "Created":
        url = wiring.mlflow().presigned_url(server["TrackingServerName"])
    elif status == "Creating":
        message = "AWS is creating the tracking server (up to 25 minutes); GET this again until it is Created."
    elif status in mlflow.FAILED:
        message = f"The tracking server is {status}; delete it in SageMaker or PUT another trackingServerName."
    return MlflowView(
        cluster=name,
        trackingServerName=server["TrackingServerName"],
        trackingServerArn=server["TrackingServerArn"],
        status=status,
        artifactStoreUri=server.get("ArtifactStoreUri"),
        size=server.get("TrackingServerSize"),
        mlflowVersion=server.get("MlflowVersion"),
        url=url,
        message=message,
    )


@route(router, "configure_mlflow")
def configure_mlflow(
    name: Annotated[ClusterName, Path()],
    body: Annotated[ConfigureMlflowRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    record = _record(name)
    server_name = body.trackingServerName or mlflow.default_name(settings().resource_prefix, name)
    found = wiring.mlflow().describe(server_name)
    current = record.get(SERVER_ATTRIBUTE)
    sent_size = body.size if "size" in body.model_fields_set else None
    plan = mlflow.plan(name, server_name, str(current) if current else None, found, sent_size)
    request = ConfigureMlflowWorkflowRequest(
        name=name, trackingServerName=server_name, size=body.size, create=found is None
    )

    def start() -> OperationView:
        operation, _ = ops.submit(
            wiring.operations(), wiring.workflows(), mlflow.workflow(request, plan), router.context["principal"]
        )
        return operation

    return planned(plan, dryRun, start, noop=f"{name} already logs to tracking server {server_name}; no changes.")


@route(router, "get_mlflow")
def get_mlflow(name: Annotated[ClusterName, Path()]) -> MlflowView:
    _record(name)
    server = mlflow_cases.server_of(name, clusters=wiring.clusters(), servers=wiring.mlflow())
    if server is None:
        raise NotFound(f"{name} has no MLflow tracking server; PUT /api/clusters/{name}/mlflow to create or pick one.")
    return _view(name, server)
