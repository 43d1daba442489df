"""Your preferences: the active cluster, shared by the console and your agents."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest
from launchpod.domain.errors import NotFound
from launchpod.entrypoints.api.routing import route
from launchpod.runtime import wiring

router = APIGatewayRouter()


@route(router, "get_me")
def get_me() -> MeView:
    who = router.context["principal"]
    return MeView(subject=who.subject, role=who.role.value)


@route(router, "get_preferences")
def get_preferences() -> PreferencesView:
    subject = router.context["principal"].subject
    return PreferencesView(**wiring.preferences().get(subject))


@route(router, "set_preferences")
def set_preferences(request: UpdatePreferencesRequest) -> PreferencesView:
    subject = router.context["principal"].subject
    if request.activeCluster and wiring.clusters().get(request.activeCluster) is None:
        raise NotFound(f"Cluster {request.activeCluster} is not known to Launchpod; create or import it first.")
    return PreferencesView(**wiring.preferences().set_active_cluster(subject, request.activeCluster))
