"""The remediation ladder at work: health events fold into incidents (domain/nodes/ladder.py), node
actions report how they ended, and under the ``auto`` policy the ladder's next command runs as an
operation. Shared by the node-health event handler and the node-action workflow's phases; every change
is pushed on the cluster's topic."""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, LaunchpodError
from launchpod.domain.nodes import actions, ladder
from launchpod.domain.nodes.ladder import Command, Incident, IncidentsDocument
from launchpod.runtime import wiring
from launchpod.usecases import incidents, nodes, notifications, streaming
from launchpod.usecases.ports import KubeReader

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)

LADDER = ops.Principal(subject="launchpod-ladder", role=Role.ADMIN)
_KIND = {"reboot": actions.REBOOT, "replace": actions.REPLACE}


class OperationHistory(Protocol):
    """The operations table, read by id and by target (adapters.store.operations)."""

    def get(self, operation_id: str) -> OperationView: ...
    def list(self, *, target: str | None, status: str | None, limit: int) -> builtins.list[OperationView]: ...


@dataclass(frozen=True)
class RemediationPorts:
    incidents: incidents.IncidentPorts
    nodes: nodes.NodePorts
    operations: OperationHistory
    stream: streaming.StreamPorts
    notifications: notifications.NotificationPorts
    read: KubeReader  # a node's current boot


def real() -> RemediationPorts:
    """The deployed adapters (runtime.wiring)."""
    return RemediationPorts(
        incidents=incidents.real(),
        nodes=nodes.real(),
        operations=wiring.operations(),
        stream=streaming.real(),
        notifications=notifications.real(),
        read=wiring.kube().read,
    )


def _update(
    cluster: str, change: Callable[[IncidentsDocument], list[Incident]], *, ports: RemediationPorts
) -> list[Incident]:
    """Read-modify-write the cluster's incidents until no concurrent writer got in between; returns the
    incidents ``change`` touched (it may be run again on a fresh read), each pushed once written."""
    touched: list[Incident] = []

    def edit(doc: IncidentsDocument) -> bool:
        touched[:] = change(doc)
        return bool(touched)

    busy = f"The incidents of {cluster} kept changing under concurrent writers; the event is retried."
    if not incidents.rewrite(cluster, edit, busy, ports=ports.incidents):
        return []
    for incident in touched:
        streaming.publish(f"cluster:{cluster}", "incident", ladder.view(incident, incidents.now()), ports=ports.stream)
        _tell(cluster, incident, ports=ports)
    return touched


def _tell(cluster: str, incident: Incident, *, ports: RemediationPorts) -> None:
    """An incident opened, and a ladder that stopped (fleet instability, a failed replacement, stuck): each
    told once per incident (and per stopping state), however often the incident is rewritten."""
    node, path = incident["nodeId"], f"/clusters/{cluster}"
    reason = incident.get("reason") or "no reason given"
    notifications.tell(
        cluster,
        "incident-opened",
        incident["id"],
        f"Node {node} of {cluster} is unhealthy",
        f"Incident {incident['id']} opened on node {node}: {reason}",
        path,
        ports=ports.notifications,
    )
    if incident["state"] in ladder.STOPPED:
        notifications.tell(
            cluster,
            "ladder-stopped",
            f"{incident['id']}#{incident['state']}",
            f"The remediation ladder stopped on {cluster}: {incident['state']}",
            f"Incident {incident['id']} on node {node} needs a person: {incident['state']} ({reason}).",
            path,
            ports=ports.notifications,
        )


def _node_action_holding(exc: LaunchpodError, *, ports: RemediationPorts) -> str | None:
    """The running node action that holds the cluster, when that is why the submit was refused."""
    holder = exc.extra.get("holder") if isinstance(exc, Conflict) else None
    if not holder:
        return None
    try:
        operation = ports.operations.get(str(holder))
    except LaunchpodError:
        return None
    return operation.id if operation.kind in actions.KINDS else None


def _run(cluster: str, incident_id: str, cmd: Command, *, ports: RemediationPorts, attempts: int = 3) -> None:
    """Start the ladder's command as an operation, and record that it ran (or why it could not). While
    another node action holds the cluster the command waits for it: that action's FollowUp runs it."""
    request: dict[str, Any] = {k: v for k, v in cmd["arguments"].items() if k != "name"}
    holder: str | None = None
    try:
        # The same submit as the nodes routes', without their look at the cluster's state: HyperPod reported
        # the fault, and a refusal is recorded on the incident as blocked.
        operation = nodes.submit_action(_KIND[cmd["action"]], cluster, request, LADDER, ports=ports.nodes)
        record: Callable[[Incident], None] = lambda i: ladder.started(i, cmd, operation.id, incidents.now())  # noqa: E731
    except LaunchpodError as exc:
        if isinstance(exc, Conflict) and not exc.extra.get("holder") and attempts > 1:
            # The holder released the cluster between the refusal and the look at who held it: again.
            _run(cluster, incident_id, cmd, ports=ports, attempts=attempts - 1)
            return
        reason = exc.message
        holder = _node_action_holding(exc, ports=ports)
        if holder:
            record = lambda i: ladder.waiting(i, cmd, str(holder), incidents.now())  # noqa: E731
        else:
            record = lambda i: ladder.blocked(i, cmd, reason, incidents.now())  # noqa: E731

    def change(doc: IncidentsDocument) -> list[Incident]:
        incident = next((i for i in doc["incidents"] if i["id"] == incident_id), None)
        if incident is None:
            return []
        record(incident)
        return [incident]

    _update(cluster, change, ports=ports)
    if holder and attempts > 1 and _terminal(holder, ports=ports):
        # The holder ended between the refusal and the record: its FollowUp may have missed the command.
        def take(doc: IncidentsDocument) -> list[Incident]:
            incident = next((i for i in doc["incidents"] if i["id"] == incident_id and i.get("pending")), None)
            if incident is None:
                return []
            incident["pending"] = None
            return [incident]

        if _update(cluster, take, ports=ports):
            _run(cluster, incident_id, cmd, ports=ports, attempts=attempts - 1)


def _terminal(operation_id: str, *, ports: RemediationPorts) -> bool:
    return OperationStatus(ports.operations.get(operation_id).status).terminal


def replaced_recently(cluster: str, *, ports: RemediationPorts) -> int:
    """Nodes replace-nodes operations (anyone's, the ladder's too) replaced on the cluster in the fleet window."""
    since = incidents.now() - timedelta(seconds=ladder.FLEET_WINDOW)
    operations = ports.operations.list(target=cluster, status=None, limit=200)
    return sum(
        len(o.request.get("nodeIds") or [])
        for o in operations
        if o.kind == actions.REPLACE and o.createdAt >= since and o.status in ("PENDING", "RUNNING", "SUCCEEDED")
    )


def on_health_event(event: ladder.HealthEvent, *, ports: RemediationPorts) -> dict[str, Any]:
    """Fold one node-health event in; under ``auto``, run what the ladder decided."""
    decided: dict[str, Any] = {}
    replaced = 0 if event.healthy else replaced_recently(event.cluster, ports=ports)

    def change(doc: IncidentsDocument) -> list[Incident]:
        decision = ladder.decide(doc["incidents"], event, incidents.policy_of(doc), incidents.now(), replaced)
        decided.update(decision=decision, policy=incidents.policy_of(doc))
        return [decision.incident] if decision.incident is not None and decision.changed else []

    _update(event.cluster, change, ports=ports)
    decision: ladder.Decision | None = decided.get("decision")
    if decision is None or decision.incident is None:
        return {"incident": None}
    if decision.run:
        _run(event.cluster, decision.incident["id"], decision.run, ports=ports)
    return {
        "incident": decision.incident["id"],
        "duplicate": decision.duplicate,
        "opened": decision.opened,
        "ran": decision.run["action"] if decision.run else None,
        "policy": decided["policy"],
    }


def acting(cluster: str, kind: str, node_ids: list[str], operation_id: str, *, ports: RemediationPorts) -> None:
    """A node action started on nodes with open incidents (by the ladder or by anyone)."""
    if kind not in (actions.REBOOT, actions.REPLACE):
        return

    def change(doc: IncidentsDocument) -> list[Incident]:
        touched = []
        for node_id in node_ids:
            incident = ladder.open_incident(doc["incidents"], node_id)
            if incident is not None and incident.get("operationId") != operation_id:
                verb = actions.VERB[kind]
                cmd = ladder.command(cluster, verb, node_id, f"{verb} started by {operation_id}")
                ladder.started(incident, cmd, operation_id, incidents.now())
                touched.append(incident)
        return touched

    _update(cluster, change, ports=ports)


def ended(
    cluster: str, kind: str, outcomes: list[actions.NodeOutcome], operation_id: str, *, ports: RemediationPorts
) -> None:
    """A node action ended: each node's outcome moves its incident up the ladder (or closes it)."""

    def change(doc: IncidentsDocument) -> list[Incident]:
        touched = []
        for o in outcomes:
            incident = ladder.open_incident(doc["incidents"], o.nodeId)
            if incident is not None:
                ladder.outcome(incident, kind, o.ok, o.message, o.replacement, operation_id, incidents.now())
                touched.append(incident)
        return touched

    try:
        _update(cluster, change, ports=ports)
    except LaunchpodError as exc:  # the action's own result stands; the ladder catches up on the next event
        log.warning("could not record the node action on its incidents", extra={"error": exc.message})


def follow_up(cluster: str, node_ids: list[str], *, ports: RemediationPorts) -> list[str]:
    """After a node action released the cluster: run (auto) or suggest what was decided while it ran."""
    todo: list[tuple[str, Command]] = []

    def change(doc: IncidentsDocument) -> list[Incident]:
        todo.clear()
        touched = []
        for incident in doc["incidents"]:
            if incident["nodeId"] not in node_ids and not set(incident["nodes"]) & set(node_ids):
                continue
            cmd = incident.get("pending")
            if not cmd:
                continue
            incident["pending"] = None
            if incident["state"] == "acting":
                incident["state"] = "open"
            if incidents.policy_of(doc) == "auto":
                todo.append((incident["id"], cmd))
            else:
                incident["nextStep"] = cmd
                incident["steps"].append(
                    {
                        "at": incidents.now().isoformat(),
                        "action": cmd["action"],
                        "mode": "suggested",
                        "note": cmd["why"],
                        "operationId": None,
                    }
                )
            touched.append(incident)
        return touched

    _update(cluster, change, ports=ports)
    for incident_id, cmd in todo:
        _run(cluster, incident_id, cmd, ports=ports)
    return [i for i, _ in todo]
