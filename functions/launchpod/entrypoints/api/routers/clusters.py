"""Clusters: list and read (status read from AWS, not only our table), create the control plane, import
and delete."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    CreateClusterRequest,
    DeleteClusterInput,
    DeleteHyperPodInput,
    ImportClusterRequest,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.entrypoints.api.routing import (
    ClusterPath,
    ConfirmQuery,
    DryRunQuery,
    NextTokenQuery,
    Planned,
    answer,
    route,
)
from launchpod.usecases import clusters, idempotency, provisioning

router = APIGatewayRouter()


@route(router, "list_clusters")
def list_clusters(limit: Annotated[int, Query(ge=1, le=200)] = 50, nextToken: NextTokenQuery = None) -> ClusterListView:
    return clusters.list_clusters(limit, nextToken, ports=clusters.real())


@route(router, "get_cluster")
def get_cluster(name: ClusterPath) -> ClusterView:
    return clusters.get_cluster(name, ports=clusters.real())


@route(router, "create_cluster")
def create_cluster(request: CreateClusterRequest, dryRun: DryRunQuery = False) -> Planned[OperationAcceptedView]:
    who = router.context["principal"]
    proposal = provisioning.create_cluster(request, who, ports=provisioning.real())
    headers = router.current_event.headers
    key = headers.get("idempotency-key") or headers.get("Idempotency-Key")
    return answer(idempotency.guarded(proposal, key, who.subject, request.model_dump(mode="json")), dryRun)


@route(router, "delete_cluster")
def delete_cluster(
    name: ClusterPath, confirm: ConfirmQuery = "", dryRun: DryRunQuery = False
) -> Response[OperationAcceptedView | PlanView]:
    request = DeleteClusterInput(name=name, confirm=confirm)
    return answer(clusters.delete_cluster(request, router.context["principal"], ports=clusters.real()), dryRun)


@route(router, "delete_hyperpod")
def delete_hyperpod(
    name: ClusterPath, confirm: ConfirmQuery = "", dryRun: DryRunQuery = False
) -> Response[OperationAcceptedView | PlanView]:
    request = DeleteHyperPodInput(name=name, confirm=confirm)
    return answer(clusters.delete_hyperpod(request, router.context["principal"], ports=clusters.real()), dryRun)


@route(router, "import_cluster")
def import_cluster(request: ImportClusterRequest, dryRun: DryRunQuery = False) -> Planned[OperationAcceptedView]:
    return answer(clusters.import_cluster(request, router.context["principal"], ports=clusters.real()), dryRun)
