"""One provisioning phase of a cluster run again on its own (control-plane, dependencies, hyperpod or
storage), with the settings recorded for the cluster, through the same submit path as its own route."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.clusters import ProvisionPhase
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, accepted, route
from launchpod.usecases import phases

router = APIGatewayRouter()


@route(router, "run_cluster_phase")
def run_cluster_phase(name: ClusterPath, phase: Annotated[ProvisionPhase, Path()]) -> Response[OperationAcceptedView]:
    return accepted(phases.run_phase(name, phase, router.context["principal"], ports=phases.real()))
