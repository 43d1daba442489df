"""A cluster's SageMaker managed MLflow tracking server: create or pick one (PUT, the configure-mlflow
workflow, planned first) and read its state and a presigned URL to its UI (GET). Each route parses, makes
one use-case call (usecases.mlflow) and dumps its answer."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.mlflow import ConfigureMlflowRequest, MlflowView
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, JsonBody, Planned, answer, route
from launchpod.usecases import mlflow

router = APIGatewayRouter()


@route(router, "configure_mlflow")
def configure_mlflow(
    name: ClusterPath, body: JsonBody[ConfigureMlflowRequest], dryRun: DryRunQuery = False
) -> Planned[OperationAcceptedView]:
    proposal = mlflow.configure(name, body, router.context["principal"], ports=mlflow.real())
    return answer(proposal, dryRun)


@route(router, "get_mlflow")
def get_mlflow(name: ClusterPath) -> MlflowView:
    return mlflow.get(name, ports=mlflow.real())
