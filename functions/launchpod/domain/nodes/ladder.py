"""The remediation ladder: HyperPod node-health events become one incident per node, and each incident
walks investigate -> reboot -> replace, one rung at a time.

Rules:
* Duplicates make no decision: AWS sends fault events in pairs. An unhealthy event is a repeat when the
  node has not booted since the incident's last unhealthy event (the Kubernetes Node's bootID), or, when
  the boot cannot be read, when it comes within DEDUPE_SECONDS of the last one.
* Reboot once. Unhealthy again after that reboot, within WATCH_SECONDS of it -> replace. A replacement
  that succeeded resolves the incident; one that failed is not retried by HyperPod: the ladder says so
  and alerts instead of acting.
* A replacement not healthy after REPLACEMENT_WATCH_SECONDS is watched; a chain older than
  STUCK_SECONDS without progress is stuck; FLEET_LIMIT replacements in FLEET_WINDOW over the cluster
  is fleet instability. Stuck and fleet instability stop the ladder: it alerts, it does not act.
* Policy ``off`` records incidents only; ``suggest`` records the next command for a person or agent;
  ``auto`` runs it as an operation (the caller does, with the command this module hands back).

Incidents are JSON documents (what the store keeps), typed below as TypedDicts; times are ISO 8601 strings.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NotRequired, TypedDict

from launchpod.domain.plan import Field, Plan, Step, diff

# HealthSummary.HealthStatus of the node health event as AWS documents it (developer guide, "EventBridge
# events emitted by SageMaker HyperPod"): Unhealthy opens or feeds an incident, Healthy closes one.
HEALTH_STATUSES = ("Healthy", "Unhealthy")
DEDUPE_SECONDS = 60
WATCH_SECONDS = 3600
REPLACEMENT_WATCH_SECONDS = 1800
STUCK_SECONDS = 5400
FLEET_WINDOW = 86400
FLEET_LIMIT = 5
DEFAULT_POLICY = "suggest"
# States where the ladder has stopped and only alerts: later events of the node are folded in, no action
# follows until a person acts (a node action's outcome moves the incident on).
STOPPED = ("fleet-instability", "replacement-failed", "stuck")
_FAULT_TYPE = re.compile(r"fault type (\S+)")
_POLICY_MEANS = {
    "off": "incidents are only recorded",
    "suggest": "the next command is recorded for a person or agent",
    "auto": "the next command runs as an operation (reboot once, then replace)",
}


class Command(TypedDict):
    """The ladder's next step, as an MCP tool call and its REST equivalent (``tool`` and ``rest`` None: alert)."""

    action: str
    tool: str | None
    arguments: dict[str, Any]
    rest: str | None
    why: str


class LadderStep(TypedDict):
    """One thing that happened to an incident (``mode``: recorded, suggested, ran, done, failed, blocked)."""

    at: str
    action: str
    mode: str
    note: str
    operationId: str | None


class Incident(TypedDict):
    """One node's incident: its node-health events folded, where it stands on the ladder and what came next."""

    cluster: str
    id: str
    nodeId: str
    nodes: list[str]  # the node and the replacements that took its place
    state: str
    faultType: str | None
    reason: str | None
    recommendation: str | None
    openedAt: str
    lastEventAt: str
    lastUnhealthyAt: str
    lastProgressAt: str
    bootId: str | None
    events: int
    duplicates: int
    reboots: int
    replacements: int
    nextStep: Command | None
    pending: Command | None  # decided while an action ran on the node; run or suggested when it ends
    steps: list[LadderStep]
    operationId: NotRequired[str]  # the node action running or last run on the node


class IncidentsDocument(TypedDict):
    """A cluster's incidents and its ladder policy (None: never set, read as DEFAULT_POLICY): one stored document."""

    policy: str | None
    incidents: list[Incident]


@dataclass(frozen=True)
class HealthEvent:
    """One "SageMaker HyperPod Cluster Node Health Event", as Launchpod reads it."""

    cluster: str
    node_id: str
    healthy: bool
    reason: str | None
    recommendation: str | None
    repair_action: str | None
    at: datetime
    boot_id: str | None = None  # the Kubernetes Node's bootID when the event was handled

    @property
    def fault_type(self) -> str | None:
        found = _FAULT_TYPE.search(self.reason or "")
        return found.group(1) if found else None


@dataclass
class Decision:
    incident: Incident | None
    duplicate: bool = False
    opened: bool = False
    run: Command | None = None  # the command to run now (auto policy)
    changed: bool = True
    notes: list[str] = field(default_factory=list)


def _iso(at: datetime) -> str:
    return at.isoformat()


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def command(cluster: str, action: str, node_id: str, why: str) -> Command:
    """The next step as an MCP tool call and its REST equivalent."""
    if action == "investigate":
        return {
            "action": action,
            "tool": "diagnose_node",
            "arguments": {"name": cluster, "nodeId": node_id},
            "rest": f"GET /api/clusters/{cluster}/nodes/{node_id}/diagnosis",
            "why": why,
        }
    if action == "alert":
        return {"action": action, "tool": None, "arguments": {}, "rest": None, "why": why}
    body: dict[str, Any] = {"nodeIds": [node_id]}
    if action == "replace":
        body["acknowledgeDataLoss"] = True
    return {
        "action": action,
        "tool": f"{action}_nodes",
        "arguments": {"name": cluster, **body},
        "rest": f"POST /api/clusters/{cluster}/nodes/{action}",
        "why": why,
    }


def new_incident(event: HealthEvent) -> Incident:
    stamp = event.at.strftime("%Y%m%dT%H%M%S")
    return {
        "cluster": event.cluster,
        "id": f"inc-{stamp}-{event.node_id}-{secrets.token_hex(2)}",
        "nodeId": event.node_id,
        "nodes": [event.node_id],
        "state": "open",
        "faultType": event.fault_type,
        "reason": event.reason,
        "recommendation": event.recommendation,
        "openedAt": _iso(event.at),
        "lastEventAt": _iso(event.at),
        "lastUnhealthyAt": _iso(event.at),
        "lastProgressAt": _iso(event.at),
        "bootId": event.boot_id,
        "events": 0,
        "duplicates": 0,
        "reboots": 0,
        "replacements": 0,
        "nextStep": None,
        "pending": None,
        "steps": [],
    }


def open_incident(incidents: list[Incident], node_id: str) -> Incident | None:
    mine = [i for i in incidents if i["nodeId"] == node_id and i["state"] != "resolved"]
    return max(mine, key=lambda i: i["openedAt"]) if mine else None


def replacements_in_window(incidents: list[Incident], now: datetime) -> int:
    since = now - timedelta(seconds=FLEET_WINDOW)
    return sum(
        1
        for i in incidents
        for s in i["steps"]
        if s["action"] == "replace" and s["mode"] == "ran" and _at(s["at"]) >= since
    )


def _step(incident: Incident, at: datetime, action: str, mode: str, note: str, op: str | None = None) -> None:
    incident["steps"].append({"at": _iso(at), "action": action, "mode": mode, "note": note, "operationId": op})


def _repeat(incident: Incident, event: HealthEvent) -> bool:
    if event.boot_id and incident.get("bootId"):
        return bool(event.boot_id == incident["bootId"])
    return (event.at - _at(incident["lastUnhealthyAt"])).total_seconds() <= DEDUPE_SECONDS


def _next_rung(incident: Incident, now: datetime, others: list[Incident], replaced: int = 0) -> tuple[str, str]:
    """(action, why) for an incident whose node is unhealthy (again)."""
    node = incident["nodeId"]
    # A reboot counts from when it starts: a fault reported while it runs does not earn a second one.
    rebooted = incident["reboots"] > 0 or any(
        s["action"] == "reboot" and s["mode"] in ("ran", "done") for s in incident["steps"]
    )
    if not rebooted and incident["replacements"] == 0:
        return "reboot", f"{incident['faultType'] or 'a fault'} on {node}: reboot first (the lower rung)."
    if max(replacements_in_window(others, now), replaced) >= FLEET_LIMIT:
        return "alert", (
            f"Fleet instability: {FLEET_LIMIT} or more replacements in the last 24 h on {incident['cluster']}. "
            "The ladder stops: look at the capacity, the AMI and the workload before replacing more nodes."
        )
    return "replace", f"{node} is unhealthy again after a reboot: replace it (its local volumes are lost)."


def decide(incidents: list[Incident], event: HealthEvent, policy: str, now: datetime, replaced: int = 0) -> Decision:
    """Fold one health event into the cluster's incidents and say what the ladder does next.
    ``replaced``: nodes replaced on the cluster in the last FLEET_WINDOW by anyone (replace operations)."""
    incident = open_incident(incidents, event.node_id)
    watched = (event.at - _at(incident["lastProgressAt"])).total_seconds() if incident else 0.0
    if incident is not None and incident["state"] == "watching" and watched > WATCH_SECONDS:
        # Healthy for the whole watch window after its reboot: that incident is over; this is a new one.
        incident["state"] = "resolved"
        _step(incident, now, "resolve", "done", f"Healthy for {WATCH_SECONDS // 60} min after the reboot.")
        incident = None
    if event.healthy:
        if incident is None:
            return Decision(None, changed=False)
        incident["events"] += 1
        incident["lastEventAt"] = _iso(event.at)
        if incident["state"] == "open" and not incident["reboots"] and not incident["replacements"]:
            incident["state"] = "resolved"
            incident["nextStep"] = None
            _step(incident, now, "resolve", "done", f"{event.node_id} reported healthy again with no action taken.")
        else:
            _step(incident, now, "watch", "recorded", f"{event.node_id} reported healthy; watching it.")
        return Decision(incident)
    if incident is not None and _repeat(incident, event):
        incident["events"] += 1
        incident["duplicates"] += 1
        incident["lastEventAt"] = _iso(event.at)
        return Decision(incident, duplicate=True)
    opened = incident is None
    if incident is None:
        incident = new_incident(event)
        incidents.append(incident)
        _step(
            incident,
            now,
            "investigate",
            "recorded",
            f"{event.reason or 'Unhealthy'} Recommendation: {(event.recommendation or 'none').rstrip('.')}."
            f" HyperPod's repair action: {event.repair_action or 'None'}.",
        )
    incident["events"] += 1
    incident["lastEventAt"] = incident["lastUnhealthyAt"] = _iso(event.at)
    incident["bootId"] = event.boot_id or incident.get("bootId")
    if incident["state"] in STOPPED:
        return Decision(incident, opened=opened)
    action, why = _next_rung(incident, now, incidents, replaced)
    return _apply(incident, action, why, policy, now, opened, event.repair_action)


def _apply(
    incident: Incident,
    action: str,
    why: str,
    policy: str,
    now: datetime,
    opened: bool,
    repair_action: str | None = None,
) -> Decision:
    cmd = command(incident["cluster"], action, incident["nodeId"], why)
    if action == "alert":
        incident["state"] = "fleet-instability"
        incident["nextStep"] = cmd
        _step(incident, now, "alert", "recorded", why)
        return Decision(incident, opened=opened)
    if repair_action and repair_action not in ("None", ""):
        # HyperPod repairs the node itself (node recovery Automatic): acting too would race it.
        incident["nextStep"] = None
        _step(incident, now, "watch", "recorded", f"HyperPod is repairing the node itself ({repair_action}).")
        return Decision(incident, opened=opened)
    if policy == "off":
        incident["nextStep"] = None
        return Decision(incident, opened=opened)
    if incident["state"] == "acting":
        # An operation on the node is still running: decide when it ends (follow_up).
        incident["pending"] = cmd
        _step(incident, now, action, "recorded", "Unhealthy again while an action runs; decided when it ends.")
        return Decision(incident, opened=opened)
    incident["nextStep"] = cmd
    if policy == "suggest":
        _step(incident, now, action, "suggested", why)
        return Decision(incident, opened=opened)
    return Decision(incident, opened=opened, run=cmd)


def started(incident: Incident, cmd: Command, operation_id: str, now: datetime) -> None:
    """The node action ``operation_id`` (what ``cmd`` asked) started on the incident's node."""
    incident["state"] = "acting"
    incident["pending"] = None
    incident["operationId"] = operation_id
    incident["lastProgressAt"] = _iso(now)
    # The operation's own StartAction may have recorded it first (acting): one "ran" step per operation.
    if not any(s["operationId"] == operation_id and s["mode"] == "ran" for s in incident["steps"]):
        _step(incident, now, cmd["action"], "ran", cmd["why"], operation_id)


def waiting(incident: Incident, cmd: Command, holder: str, now: datetime) -> None:
    """The command waits for the node action holding the cluster; that action's follow-up runs it."""
    incident["pending"] = cmd
    incident["nextStep"] = cmd
    _step(incident, now, cmd["action"], "recorded", f"Waits for {holder} to release the cluster, then runs.", holder)


def blocked(incident: Incident, cmd: Command, reason: str, now: datetime) -> None:
    incident["nextStep"] = cmd
    _step(incident, now, cmd["action"], "blocked", f"Not run: {reason}. Run it yourself: {cmd['tool']}.")


def outcome(
    incident: Incident,
    kind: str,
    ok: bool,
    message: str,
    replacement: str | None,
    operation_id: str,
    now: datetime,
) -> None:
    """A node action on the incident's node ended (reported by the node-action workflow)."""
    action = "reboot" if kind == "reboot-nodes" else "replace" if kind == "replace-nodes" else None
    if action is None:
        return
    incident["lastProgressAt"] = _iso(now)
    if action == "reboot":
        incident["reboots"] += 1
        _step(incident, now, "reboot", "done" if ok else "failed", message, operation_id)
        if incident["state"] in STOPPED:
            # The ladder stopped while the reboot ran (fleet instability, say): the reboot ending does not
            # restart it, and the alert stays the next step.
            return
        incident["nextStep"] = None
        incident["state"] = "watching" if ok else "open"
        if not ok:
            incident["nextStep"] = command(
                incident["cluster"], "replace", incident["nodeId"], f"The reboot failed: {message}"
            )
        return
    incident["nextStep"] = None
    incident["replacements"] += 1
    if replacement:
        incident["nodeId"] = replacement
        incident["nodes"].append(replacement)
        incident["bootId"] = None
    if ok:
        incident["state"] = "resolved"
        _step(incident, now, "replace", "done", message, operation_id)
        _step(incident, now, "resolve", "done", f"The replacement {replacement or ''} is Running.".replace("  ", " "))
        return
    incident["state"] = "replacement-failed"
    _step(incident, now, "replace", "failed", message, operation_id)
    why = (
        "The replacement failed and HyperPod does not retry a failed replacement: check capacity in the zone and"
        " the lifecycle script's logs, then replace or delete the node yourself."
    )
    incident["nextStep"] = command(incident["cluster"], "alert", incident["nodeId"], why)
    _step(incident, now, "alert", "recorded", why)


def view(incident: Incident, now: datetime) -> dict[str, Any]:
    """The incident as shown: states that follow from time alone are derived here."""
    out: dict[str, Any] = {
        k: v
        for k, v in incident.items()
        if k not in ("lastUnhealthyAt", "lastProgressAt", "bootId", "pending", "operationId")
    }
    steps: list[LadderStep] = list(incident["steps"])
    out["steps"] = steps
    state = incident["state"]
    progress = _at(incident["lastProgressAt"])
    if state == "watching" and (now - progress).total_seconds() > WATCH_SECONDS:
        out["state"] = "resolved"
    elif state in ("open", "acting") and (now - progress).total_seconds() > STUCK_SECONDS:
        out["state"] = "stuck"
        out["nextStep"] = command(
            incident["cluster"],
            "alert",
            incident["nodeId"],
            f"No progress for {STUCK_SECONDS // 60} min: the ladder stopped. Look at the node and its operations.",
        )
    elif (
        state == "acting"
        and incident["steps"]
        and incident["steps"][-1]["action"] == "replace"
        and (now - progress).total_seconds() > REPLACEMENT_WATCH_SECONDS
    ):
        steps.append(
            {
                "at": _iso(now),
                "action": "watch",
                "mode": "recorded",
                "note": f"The replacement is not healthy after {REPLACEMENT_WATCH_SECONDS // 60} min; watching it.",
                "operationId": incident.get("operationId"),
            }
        )
    return out


def policy_plan(cluster: str, real: str, desired: str) -> Plan:
    """The policy's change as a plan: one step naming what the ladder then does, or none when it is so."""
    target = f"remediation ladder policy of {cluster}"

    def step(want: str, have: str) -> Step:
        reason = f"policy is {have}; the request asks for {want}: {_POLICY_MEANS[want]}, from the next health event on"
        return Step("update", target, reason)

    field_ = Field("policy", mutable=True, step=step)
    # A cluster always has a policy (never set reads as the default), so there is nothing to create.
    return diff(target, {"policy": desired}, {"policy": real}, [field_], resource=target, create=tuple)
