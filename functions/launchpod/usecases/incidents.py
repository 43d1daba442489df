"""A cluster's incidents (node-health events folded per node, with the ladder's steps and next step) and
the ladder's policy (off, suggest, auto), all in one versioned document per cluster. The incidents routes
and the remediation ladder (usecases/remediation.py) read and rewrite it through here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from launchpod.contracts.incidents import IncidentListView, IncidentView, LadderPolicyRequest, LadderPolicyView
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain.errors import Conflict, NotFound, next_step
from launchpod.domain.nodes import ladder
from launchpod.domain.nodes.ladder import IncidentsDocument
from launchpod.runtime import wiring
from launchpod.usecases.ports import ClusterRecords, IncidentDocs
from launchpod.usecases.proposal import at_once


@dataclass(frozen=True)
class IncidentPorts:
    clusters: ClusterRecords
    incidents: IncidentDocs


def real() -> IncidentPorts:
    """The deployed adapters (runtime.wiring)."""
    return IncidentPorts(clusters=wiring.clusters(), incidents=wiring.incidents())


def now() -> datetime:
    return datetime.now(UTC)


def policy_of(doc: IncidentsDocument) -> str:
    return str(doc.get("policy") or ladder.DEFAULT_POLICY)


def rewrite(cluster: str, change: Callable[[IncidentsDocument], bool], busy: str, *, ports: IncidentPorts) -> bool:
    """Read-modify-write the cluster's document until no concurrent writer got in between. ``change`` edits
    the document and says whether it changed anything (it may run again on a fresh read); nothing changed
    is not written (False). Still contended after 8 tries: 409 with ``busy``."""
    for _ in range(8):
        doc, version = ports.incidents.get(cluster)
        if not change(doc):
            return False
        if ports.incidents.put(cluster, doc, version):
            return True
    raise Conflict(busy)


def incident_views(cluster: str, *, ports: IncidentPorts) -> list[dict[str, Any]]:
    """The cluster's incidents as shown now (states that follow from time alone derived)."""
    doc, _ = ports.incidents.get(cluster)
    at = now()
    return [ladder.view(i, at) for i in doc["incidents"]]


def _known(name: str, ports: IncidentPorts) -> None:
    if ports.clusters.get(name) is None:
        raise NotFound(f"Launchpod has no cluster {name}.", details=[next_step("GET /api/clusters")])


def list_incidents(name: str, *, ports: IncidentPorts) -> IncidentListView:
    """The cluster's incidents, newest first, with the ladder's policy."""
    _known(name, ports)
    doc, _ = ports.incidents.get(name)
    at = now()
    items = [IncidentView(**ladder.view(i, at)) for i in doc["incidents"]]
    items.sort(key=lambda i: i.openedAt, reverse=True)
    return IncidentListView(cluster=name, policy=policy_of(doc), items=items)  # type: ignore[arg-type]


def set_policy(
    name: str, request: LadderPolicyRequest, dry_run: bool, *, ports: IncidentPorts
) -> LadderPolicyView | NoopView | PlanView:
    """The ladder's policy of the cluster, planned against the stored one: NOOP when it already is that
    policy (never set reads as the default, suggest), the plan on a dry run, else written (the incidents
    are left as they are)."""
    _known(name, ports)
    doc, _ = ports.incidents.get(name)
    plan = ladder.policy_plan(name, policy_of(doc), request.policy)

    def change(doc: IncidentsDocument) -> bool:
        if doc.get("policy") == request.policy:  # a concurrent caller set it first
            return False
        doc["policy"] = request.policy
        return True

    def apply() -> LadderPolicyView:
        rewrite(name, change, f"The incidents of {name} kept changing; set the policy again.", ports=ports)
        return LadderPolicyView(cluster=name, policy=request.policy)

    return at_once(plan, dry_run, f"The ladder policy of {name} is already {request.policy}; no changes.", apply)
