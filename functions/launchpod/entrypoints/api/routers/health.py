"""GET /api/health (usecases/health.py)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.health import HealthView
from launchpod.entrypoints.api.routing import route
from launchpod.usecases import health as cases

router = APIGatewayRouter()


@route(router, "health")
def health() -> HealthView:
    return cases.health()
