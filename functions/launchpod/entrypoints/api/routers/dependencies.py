"""A cluster's dependencies: their status (pinned vs installed, drift) and reconciling them."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.dependencies import (
    DependencyListView,
    DependencyView,
    ReconcileDependenciesInput,
    ReconcileDependenciesRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.domain import dependencies
from launchpod.domain.dependencies import objects
from launchpod.entrypoints.api.routing import planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import provisioning

router = APIGatewayRouter()


def _rows(name: str) -> list[dict[str, Any]]:
    installed: dict[str, str | None] = {}
    for entry in dependencies.manifest().manifests:
        workload = objects.workload_of(objects.objects_for(entry.name, entry.version, settings().region))
        found = k8s.read(name, workload)
        installed[entry.name] = ((found or {}).get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/version")
    return dependencies.status(wiring.eks().addons(name), installed)


@route(router, "list_dependencies")
def list_dependencies(name: Annotated[ClusterName, Path()]) -> DependencyListView:
    provisioning.require_active(name, "dependencies need", eks_clusters=wiring.eks())
    return DependencyListView(
        cluster=name,
        manifestVersion=dependencies.manifest().version,
        items=[DependencyView(**r) for r in _rows(name)],
    )


@route(router, "reconcile_dependencies")
def reconcile_dependencies(
    name: Annotated[ClusterName, Path()],
    body: Annotated[ReconcileDependenciesRequest | None, Body()] = None,
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    request = ReconcileDependenciesInput(name=name, includeOptional=bool(body and body.includeOptional))
    provisioning.require_active(name, "dependencies need", eks_clusters=wiring.eks())
    found = dependencies.reconcile_plan(name, _rows(name), request.includeOptional)
    return planned(
        found,
        dryRun,
        lambda: provisioning.start_reconcile(request, router.context["principal"], found),
        noop=f"Every dependency of {name} is at its pinned version; no changes.",
    )
