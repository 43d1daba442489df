"""A cluster's models: downloads from Hugging Face into an S3 storage (the model-download workflow), and
the models present in its S3 storage. Each route is parse, one use case (launchpod.usecases.models), dump;
the token never leaves the use case but as a Kubernetes Secret."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.models import DownloadModelInput, DownloadModelRequest, ModelListView
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, JsonBody, accepted, route
from launchpod.usecases import models as cases

router = APIGatewayRouter()


@route(router, "download_model")
def download_model(name: ClusterPath, body: JsonBody[DownloadModelRequest]) -> Response[OperationAcceptedView]:
    request = DownloadModelInput(name=name, **body.model_dump(exclude={"hfToken"}), hfToken=body.hfToken)
    return accepted(cases.download(request, who=router.context["principal"], ports=cases.real()))


@route(router, "list_models")
def list_models(name: ClusterPath) -> ModelListView:
    return cases.list_models(name, ports=cases.real())
