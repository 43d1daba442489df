"""A cluster's dependencies: their status (pinned vs installed, drift) and reconciling them."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic.json_schema import SkipJsonSchema

from launchpod.contracts.dependencies import (
    DependencyListView,
    ReconcileDependenciesInput,
    ReconcileDependenciesRequest,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, Planned, answer, route
from launchpod.usecases import provisioning

router = APIGatewayRouter()


@route(router, "list_dependencies")
def list_dependencies(name: ClusterPath) -> DependencyListView:
    return provisioning.list_dependencies(name, ports=provisioning.real())


@route(router, "reconcile_dependencies")
def reconcile_dependencies(
    name: ClusterPath,
    body: Annotated[ReconcileDependenciesRequest | SkipJsonSchema[None], Body()] = None,
    dryRun: DryRunQuery = False,
) -> Planned[OperationAcceptedView]:
    request = ReconcileDependenciesInput(name=name, includeOptional=bool(body and body.includeOptional))
    proposal = provisioning.reconcile_dependencies(request, router.context["principal"], ports=provisioning.real())
    return answer(proposal, dryRun)
