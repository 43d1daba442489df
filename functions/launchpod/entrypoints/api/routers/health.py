"""GET /api/health."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.catalog_ops import HealthView
from launchpod.entrypoints.api.routing import route
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


@route(router, "health")
def health() -> HealthView:
    return HealthView(version=settings().version)
