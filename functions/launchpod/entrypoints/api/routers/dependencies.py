"""A cluster's dependencies: their status (pinned vs installed, drift) and reconciling them."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.dependencies import (
    DependencyListView,
    DependencyView,
    ReconcileDependenciesInput,
    ReconcileDependenciesRequest,
)
from launchpod.contracts.operations import OperationAcceptedView, OperationView
from launchpod.domain import dependencies
from launchpod.domain import operations as ops
from launchpod.domain.dependencies import objects
from launchpod.domain.errors import Conflict
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


def _active(name: str) -> None:
    eks = wiring.eks().cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; dependencies need an ACTIVE cluster.")


@route(router, "list_dependencies")
def list_dependencies(name: Annotated[ClusterName, Path()]) -> DependencyListView:
    _active(name)
    installed: dict[str, str | None] = {}
    for entry in dependencies.manifest().manifests:
        workload = objects.workload_of(objects.objects_for(entry.name, entry.version, settings().region))
        found = k8s.read(name, workload)
        installed[entry.name] = ((found or {}).get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/version")
    rows = dependencies.status(wiring.eks().addons(name), installed)
    return DependencyListView(
        cluster=name, manifestVersion=dependencies.manifest().version, items=[DependencyView(**r) for r in rows]
    )


def start_reconcile(request: ReconcileDependenciesInput, who: ops.Principal) -> OperationView:
    _active(request.name)
    plan = dependencies.plan(request.name, request.includeOptional)
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), plan, who)
    return operation


@route(router, "reconcile_dependencies")
def reconcile_dependencies(
    name: Annotated[ClusterName, Path()],
    body: Annotated[ReconcileDependenciesRequest | None, Body()] = None,
) -> Response[OperationAcceptedView]:
    request = ReconcileDependenciesInput(name=name, includeOptional=bool(body and body.includeOptional))
    operation = start_reconcile(request, router.context["principal"])
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)
