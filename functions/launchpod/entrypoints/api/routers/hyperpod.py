"""The HyperPod cluster of a Launchpod cluster: provision a whole cluster, create HyperPod on an ACTIVE
control plane, update its software."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic.json_schema import SkipJsonSchema

from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.hyperpod import CreateHyperPodRequest, UpdateSoftwareInput, UpdateSoftwareRequest
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, Planned, answer, route
from launchpod.usecases import hyperpod

router = APIGatewayRouter()


@route(router, "provision_cluster")
def provision_cluster(request: ProvisionClusterRequest, dryRun: DryRunQuery = False) -> Planned[OperationAcceptedView]:
    return answer(hyperpod.provision_cluster(request, router.context["principal"], ports=hyperpod.real()), dryRun)


@route(router, "create_hyperpod")
def create_hyperpod(
    name: ClusterPath, request: CreateHyperPodRequest, dryRun: DryRunQuery = False
) -> Planned[OperationAcceptedView]:
    proposal = hyperpod.create_hyperpod(name, request, router.context["principal"], ports=hyperpod.real())
    return answer(proposal, dryRun)


@route(router, "update_software")
def update_software(
    name: ClusterPath,
    body: Annotated[UpdateSoftwareRequest | SkipJsonSchema[None], Body()] = None,
    dryRun: DryRunQuery = False,
) -> Response[OperationAcceptedView | PlanView]:
    request = UpdateSoftwareInput(name=name, **(body.model_dump() if body else {}))
    return answer(hyperpod.update_software(request, router.context["principal"], ports=hyperpod.real()), dryRun)
