"""Clusters: list and read (status read from AWS, not only our table), create the control plane."""

from __future__ import annotations

from typing import Annotated

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
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, imports, teardown
from launchpod.domain.clusters.views import cluster_view, owned_by_launchpod
from launchpod.domain.errors import Conflict, NotFound
from launchpod.entrypoints.api import idempotency
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


def _view(name: str, record: dict | None) -> ClusterView:
    eks = wiring.eks().cluster(name)
    addons = wiring.eks().addons(name) if eks and eks.get("status") == "ACTIVE" else {}
    return cluster_view(name, settings().region, record, eks, addons, wiring.sagemaker().hyperpod_cluster(name))


@route(router, "list_clusters")
def list_clusters() -> ClusterListView:
    return ClusterListView(items=[_view(r["name"], r) for r in wiring.clusters().list()])


@route(router, "get_cluster")
def get_cluster(name: Annotated[ClusterName, Path()]) -> ClusterView:
    record = wiring.clusters().get(name)
    view = _view(name, record)
    if record is None and view.eks.status == "NOT_FOUND":
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    return view


def check_control_plane(request: CreateClusterRequest) -> dict | None:
    """The zones exist and any EKS cluster of that name is Launchpod's; returns that cluster."""
    control_plane.check_zones(request, [z["name"] for z in wiring.ec2().zones()], settings().region)
    existing = wiring.eks().cluster(request.name)
    if existing is not None and not owned_by_launchpod(existing, request.name, settings().resource_prefix):
        raise Conflict(
            f"An EKS cluster named {request.name} already exists and Launchpod did not create it; choose another name."
        )
    return existing


def submit_control_plane(request: CreateClusterRequest, who: ops.Principal) -> OperationView:
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), control_plane.plan(request), who)
    wiring.clusters().register(request.name, source="created", region=settings().region)
    return operation


def start_control_plane(request: CreateClusterRequest, who: ops.Principal) -> OperationView:
    """create-control-plane whatever EKS's state: each of its phases skips what is already done."""
    check_control_plane(request)
    return submit_control_plane(request, who)


@route(router, "create_cluster")
def create_cluster(request: CreateClusterRequest) -> Response[OperationAcceptedView | NoopView]:
    who: ops.Principal = router.context["principal"]
    existing = check_control_plane(request)
    record = wiring.clusters().get(request.name)
    if existing and existing.get("status") == "ACTIVE" and record and not record.get("lockedBy"):
        return json_response(NoopView(message=f"Cluster {request.name} already exists; no changes."))

    def start() -> dict:
        operation = submit_control_plane(request, who)
        return OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl).model_dump(mode="json")

    key = router.current_event.headers.get("idempotency-key") or router.current_event.headers.get("Idempotency-Key")
    accepted = OperationAcceptedView.model_validate(
        idempotency.once(key, who.subject, request.model_dump(mode="json"), start)
    )
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "delete_cluster")
def delete_cluster(
    name: Annotated[ClusterName, Path()], confirm: Annotated[str, Query()] = ""
) -> Response[OperationAcceptedView]:
    request = DeleteClusterInput(name=name, confirm=confirm)
    teardown.check_confirmation(request)
    if wiring.clusters().get(name) is None and wiring.eks().cluster(name) is None:
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), teardown.plan(request), router.context["principal"]
    )
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)


@route(router, "import_cluster")
def import_cluster(request: ImportClusterRequest) -> Response[OperationAcceptedView | NoopView]:
    record = wiring.clusters().get(request.name)
    if record is not None and not record.get("lockedBy"):
        return json_response(NoopView(message=f"Cluster {request.name} is already known to Launchpod; no changes."))
    imports.check_importable(request.name, wiring.eks().cluster(request.name))
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), imports.plan(request), router.context["principal"]
    )
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)
