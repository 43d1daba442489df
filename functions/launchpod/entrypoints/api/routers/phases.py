"""One provisioning phase of a cluster run again on its own (control-plane, dependencies, hyperpod or
storage), with the settings recorded for the cluster, through the same submit path as its own route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.clusters import ProvisionPhase
from launchpod.contracts.common import ClusterName
from launchpod.contracts.operations import OperationAcceptedView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import phases
from launchpod.domain.errors import NotFound
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.usecases import hyperpod, provisioning

router = APIGatewayRouter()

# Each phase's checks and submit, shared with its own route (without that route's NOOP: a re-run
# always runs, and each of the workflow's phases skips what is already done).
START: dict[str, Callable[[Any, ops.Principal], OperationView]] = {
    "control-plane": provisioning.start_control_plane,
    "dependencies": provisioning.start_reconcile,
    "hyperpod": hyperpod.start_hyperpod,
    "storage": provisioning.start_configure,
}
# Enough of a cluster's newest operations to find the last settings of each phase.
HISTORY = 100


@route(router, "run_cluster_phase")
def run_cluster_phase(
    name: Annotated[ClusterName, Path()], phase: Annotated[ProvisionPhase, Path()]
) -> Response[OperationAcceptedView]:
    if wiring.clusters().get(name) is None and wiring.eks().cluster(name) is None:
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    history = wiring.operations().list(target=name, status=None, limit=HISTORY)
    request = phases.recorded_input(phase, name, history)
    operation = START[phase](request, router.context["principal"])
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})
