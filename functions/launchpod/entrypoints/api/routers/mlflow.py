"""A cluster's SageMaker managed MLflow tracking server: create or pick one (PUT) and read its state and a
presigned URL to its UI (GET).

A simpler async shape than a workflow: PUT makes the tracking server's role and calls
CreateMlflowTrackingServer, which answers at once while AWS builds the server (up to 25 minutes); the
answer says Creating, and GET follows it to Created. The cluster's record keeps which server it uses."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName
from launchpod.contracts.mlflow import ConfigureMlflowRequest, MlflowView
from launchpod.domain import mlflow, ownership
from launchpod.domain.errors import Conflict, LaunchpodError, NotFound
from launchpod.entrypoints.api.routing import route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()
SERVER_ATTRIBUTE = "mlflowTrackingServer"


def _record(name: str) -> dict[str, Any]:
    record = wiring.clusters().get(name)
    if record is None:
        raise NotFound(f"No cluster {name} is registered with Launchpod; create or import it first.")
    return record


def _view(name: str, server: dict[str, Any], created: bool = False) -> MlflowView:
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
        created=created,
        url=url,
        message=message,
    )


def _create(name: str, server_name: str, size: str) -> dict[str, Any]:
    prefix, bucket = settings().resource_prefix, settings().bucket
    role, iam = mlflow.role_name(prefix, name), wiring.iam()
    tags = ownership.aws_tags(name, prefix)
    arn = iam.ensure_role(
        role, mlflow.TRUSTED_SERVICE, [], tags, f"MLflow tracking server of {name}, created by Launchpod"
    )
    iam.put_inline_policy(role, "launchpod-mlflow-artifacts", mlflow.role_policy(bucket))
    try:
        wiring.mlflow().create(mlflow.create_params(server_name, bucket, arn, size, name, prefix))
    except LaunchpodError as exc:
        if exc.extra.get("aws_code") == "ResourceLimitExceeded":
            raise Conflict(
                "The account is at its quota of MLflow tracking servers; pick an existing one with"
                " trackingServerName, delete one in SageMaker, or ask for a higher quota.",
                details=[{"field": "body.trackingServerName", "rule": "quota", "message": exc.message}],
            ) from exc
        raise
    found = wiring.mlflow().describe(server_name)
    assert found is not None
    return found


@route(router, "configure_mlflow")
def configure_mlflow(
    name: Annotated[ClusterName, Path()], body: Annotated[ConfigureMlflowRequest, Body()]
) -> MlflowView:
    record = _record(name)
    server_name = body.trackingServerName or mlflow.default_name(settings().resource_prefix, name)
    found = wiring.mlflow().describe(server_name)
    created = found is None
    if found is not None:
        status = str(found.get("TrackingServerStatus"))
        if status not in mlflow.USABLE:
            raise Conflict(
                f"Tracking server {server_name} is {status}; jobs cannot log to it. Choose another"
                " trackingServerName (a new one is created).",
                details=[{"field": "body.trackingServerName", "rule": "usable_server", "message": status}],
            )
    else:
        found = _create(name, server_name, body.size)
    wiring.clusters().register(
        name, source=record["source"], region=record["region"], **{SERVER_ATTRIBUTE: server_name}
    )
    return _view(name, found, created)


def server_of(name: str) -> dict[str, Any] | None:
    """The cluster's tracking server as SageMaker describes it; None when it has none (or it is gone)."""
    record = wiring.clusters().get(name) or {}
    server_name = record.get(SERVER_ATTRIBUTE)
    return wiring.mlflow().describe(str(server_name)) if server_name else None


@route(router, "get_mlflow")
def get_mlflow(name: Annotated[ClusterName, Path()]) -> MlflowView:
    _record(name)
    server = server_of(name)
    if server is None:
        raise NotFound(f"{name} has no MLflow tracking server; PUT /api/clusters/{name}/mlflow to create or pick one.")
    return _view(name, server)
