"""A cluster's incidents (node-health events folded per node, with the ladder's steps and next step)
and the ladder's policy: off, suggest (default) or auto, set at once after an explicit diff (200 NOOP when
it already is that policy, ``dryRun`` answers the plan) by usecases/incidents.py."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.incidents import IncidentListView, LadderPolicyRequest, LadderPolicyView
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, JsonBody, Planned, json_response, route
from launchpod.usecases import incidents

router = APIGatewayRouter()


@route(router, "list_incidents")
def list_incidents(name: ClusterPath) -> IncidentListView:
    return incidents.list_incidents(name, ports=incidents.real())


@route(router, "set_ladder_policy")
def set_ladder_policy(
    name: ClusterPath, body: JsonBody[LadderPolicyRequest], dryRun: DryRunQuery = False
) -> Planned[LadderPolicyView]:
    return json_response(incidents.set_policy(name, body, dryRun, ports=incidents.real()))
