"""A cluster's incidents (node-health events folded per node, with the ladder's steps and next step)
and the ladder's policy: off, suggest (default) or auto."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName
from launchpod.contracts.incidents import IncidentListView, IncidentView, LadderPolicyRequest, LadderPolicyView
from launchpod.domain.errors import Conflict, NotFound
from launchpod.domain.nodes import ladder
from launchpod.entrypoints.api.routing import route
from launchpod.entrypoints.remediation import now, policy_of
from launchpod.runtime import wiring

router = APIGatewayRouter()


def _known(name: str) -> None:
    if wiring.clusters().get(name) is None:
        raise NotFound(f"Launchpod has no cluster {name}; list them with GET /api/clusters.")


@route(router, "list_incidents")
def list_incidents(name: Annotated[ClusterName, Path()]) -> IncidentListView:
    _known(name)
    doc, _ = wiring.incidents().get(name)
    at = now()
    items = [IncidentView(**ladder.view(i, at)) for i in doc["incidents"]]
    items.sort(key=lambda i: i.openedAt, reverse=True)
    return IncidentListView(cluster=name, policy=policy_of(doc), items=items)  # type: ignore[arg-type]


@route(router, "set_ladder_policy")
def set_ladder_policy(
    name: Annotated[ClusterName, Path()], body: Annotated[LadderPolicyRequest, Body()]
) -> LadderPolicyView:
    _known(name)
    store = wiring.incidents()
    for _ in range(8):
        doc, version = store.get(name)
        doc["policy"] = body.policy
        if store.put(name, doc, version):
            return LadderPolicyView(cluster=name, policy=body.policy)
    raise Conflict(f"The incidents of {name} kept changing; set the policy again.")
