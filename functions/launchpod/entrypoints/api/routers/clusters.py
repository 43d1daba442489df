"""Clusters: list and read (status read from AWS, not only our table), create the control plane."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    CreateClusterRequest,
    DeleteClusterInput,
    ImportClusterRequest,
)
from launchpod.contracts.common import ClusterName
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import imports, plans, teardown
from launchpod.domain.clusters.views import cluster_view
from launchpod.domain.errors import NotFound
from launchpod.domain.plan import Plan
from launchpod.entrypoints.api import idempotency
from launchpod.entrypoints.api.routing import planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import provisioning

router = APIGatewayRouter()


def _view(name: str, record: dict[str, Any] | None) -> ClusterView:
    eks = wiring.eks().cluster(name)
    addons = wiring.eks().addons(name) if eks and eks.get("status") == "ACTIVE" else {}
    return cluster_view(name, settings().region, record, eks, addons, wiring.sagemaker().hyperpod_cluster(name))


@route(router, "list_clusters")
def list_clusters(
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    nextToken: Annotated[str | None, Query(max_length=2048)] = None,
) -> ClusterListView:
    records, token = wiring.clusters().page(limit=limit, cursor=nextToken)
    return ClusterListView(items=[_view(r["name"], r) for r in records], nextToken=token)


@route(router, "get_cluster")
def get_cluster(name: Annotated[ClusterName, Path()]) -> ClusterView:
    record = wiring.clusters().get(name)
    view = _view(name, record)
    if record is None and view.eks.status == "NOT_FOUND":
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    return view


@route(router, "create_cluster")
def create_cluster(
    request: CreateClusterRequest, dryRun: Annotated[bool, Query()] = False
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    who: ops.Principal = router.context["principal"]
    existing = provisioning.check_control_plane(request)
    record = wiring.clusters().get(request.name)
    settled = bool(existing and existing.get("status") == "ACTIVE" and record and not record.get("lockedBy"))
    plan = plans.control_plane_plan(request, existing, provisioning.subnet_zones(existing, ec2=wiring.ec2()), settled)

    def start() -> OperationView:
        def run() -> dict[str, Any]:
            operation = provisioning.submit_control_plane(request, who, plan)
            return OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl).model_dump(mode="json")

        key = router.current_event.headers.get("idempotency-key") or router.current_event.headers.get("Idempotency-Key")
        return OperationAcceptedView.model_validate(
            idempotency.once(key, who.subject, request.model_dump(mode="json"), run)
        ).operation

    return planned(plan, dryRun, start, noop=f"Cluster {request.name} already exists as asked; no changes.")


@route(router, "delete_cluster")
def delete_cluster(
    name: Annotated[ClusterName, Path()],
    confirm: Annotated[str, Query()] = "",
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | PlanView]:
    request = DeleteClusterInput(name=name, confirm=confirm)
    teardown.check_confirmation(request)
    if wiring.clusters().get(name) is None and wiring.eks().cluster(name) is None:
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    found = Plan(name, tuple(plans.workflow_steps(teardown.PHASES, "only what Launchpod created", "delete")))

    def start() -> OperationView:
        workflow = replace(teardown.plan(request), steps=found.views())
        operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, router.context["principal"])
        return operation

    return planned(found, dryRun, start)


@route(router, "import_cluster")
def import_cluster(
    request: ImportClusterRequest, dryRun: Annotated[bool, Query()] = False
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    record = wiring.clusters().get(request.name)
    if record is not None and not record.get("lockedBy"):
        found = Plan(request.name, ())
    else:
        imports.check_importable(request.name, wiring.eks().cluster(request.name))
        found = Plan(
            request.name, tuple(plans.workflow_steps(imports.PHASES, f"Launchpod does not know {request.name}"))
        )

    def start() -> OperationView:
        workflow = replace(imports.plan(request), steps=found.views())
        operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, router.context["principal"])
        return operation

    return planned(found, dryRun, start, noop=f"Cluster {request.name} is already known to Launchpod; no changes.")
