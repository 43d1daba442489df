"""A cluster's managed features: their real state, and toggles planned against it (NOOP, dry run, 202)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.features import FeatureListView, UpdateFeaturesRequest
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, JsonBody, Planned, answer, route
from launchpod.usecases import features

router = APIGatewayRouter()


@route(router, "list_features")
def list_features(name: ClusterPath) -> FeatureListView:
    return features.list_features(name, ports=features.real())


@route(router, "update_features")
def update_features(
    name: ClusterPath, body: JsonBody[UpdateFeaturesRequest], dryRun: DryRunQuery = False
) -> Planned[OperationAcceptedView]:
    return answer(features.update_features(name, body, router.context["principal"], ports=features.real()), dryRun)
