"""Your preferences: the active cluster, shared by the console and your agents."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest
from launchpod.entrypoints.api.routing import route
from launchpod.usecases import preferences

router = APIGatewayRouter()


@route(router, "get_me")
def get_me() -> MeView:
    return preferences.me(router.context["principal"])


@route(router, "get_preferences")
def get_preferences() -> PreferencesView:
    return preferences.preferences_of(router.context["principal"], ports=preferences.real())


@route(router, "set_preferences")
def set_preferences(request: UpdatePreferencesRequest) -> PreferencesView:
    return preferences.set_active_cluster(router.context["principal"], request.activeCluster, ports=preferences.real())
