"""A cluster's managed features: their real state, and toggles planned against it (NOOP, dry run, 202)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.features import FeatureListView, UpdateFeaturesInput, UpdateFeaturesRequest
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import features
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import Conflict
from launchpod.entrypoints.api.routing import input_of, planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


def real_state(name: str) -> features.RealState:
    """Everything the features depend on, read from EKS, SageMaker, IAM and the cluster's API server."""
    eks = wiring.eks().cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; managed features need an ACTIVE cluster.")
    prefix = settings().resource_prefix
    role = wiring.iam().owned_role(features.checkpoint_role_name(prefix, name), control_plane.tags(name, prefix))
    return features.RealState(
        cluster=name,
        addons=wiring.eks().addons(name),
        hyperpod=wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name)),
        checkpoint_account=k8s.read(name, features.service_account(name, None)),
        checkpoint_role=role,
        prefix=prefix,
        bucket=settings().bucket,
    )


@route(router, "list_features")
def list_features(name: Annotated[ClusterName, Path()]) -> FeatureListView:
    return FeatureListView(cluster=name, items=features.views(real_state(name)))


@route(router, "update_features")
def update_features(
    name: Annotated[ClusterName, Path()],
    body: Annotated[UpdateFeaturesRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    request = input_of(UpdateFeaturesInput, body, name=name)
    plan = features.plan(request, real_state(name))

    def start() -> OperationView:
        operation, _ = ops.submit(
            wiring.operations(), wiring.workflows(), features.workflow(request, plan), router.context["principal"]
        )
        return operation

    return planned(plan, dryRun, start, noop=f"The features of {name} already match the request; no changes.")
