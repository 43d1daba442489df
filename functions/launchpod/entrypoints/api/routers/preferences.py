"""Your preferences: the active cluster, shared by the console and your agents; set after an explicit diff
(200 NOOP when it already is so, ``dryRun`` answers the plan)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest
from launchpod.entrypoints.api.routing import DryRunQuery, JsonBody, Planned, json_response, route
from launchpod.usecases import preferences

router = APIGatewayRouter()


@route(router, "get_me")
def get_me() -> MeView:
    return preferences.me(router.context["principal"])


@route(router, "get_preferences")
def get_preferences() -> PreferencesView:
    return preferences.preferences_of(router.context["principal"], ports=preferences.real())


@route(router, "set_preferences")
def set_preferences(
    request: JsonBody[UpdatePreferencesRequest], dryRun: DryRunQuery = False
) -> Planned[PreferencesView]:
    who = router.context["principal"]
    return json_response(preferences.set_active_cluster(who, request.activeCluster, dryRun, ports=preferences.real()))
