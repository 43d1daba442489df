"""Node actions as operations: reboot, replace, delete and on-demand deep health checks.

Each is one workflow kind (so each keeps the role of the route that starts it) running the same two
phases: StartAction calls AWS in batches it allows, WaitNodes follows every accepted node to its
terminal state. Nodes AWS refused, or that did not end well, are reported one by one with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from launchpod.contracts.plans import PlanStepView
from launchpod.domain.errors import InvalidInput
from launchpod.domain.nodes.hyperpod_node import HyperPodNode
from launchpod.domain.operations import WorkflowPlan, role_for
from launchpod.domain.plan import Step

REBOOT, REPLACE, DELETE, HEALTH_CHECK = "reboot-nodes", "replace-nodes", "delete-nodes", "health-check"
KINDS = (REBOOT, REPLACE, DELETE, HEALTH_CHECK)

# botocore's sagemaker model: BatchReboot/BatchReplaceClusterNodes take at most 25 NodeIds; the API
# reference says BatchDeleteClusterNodes deletes at most 99 nodes per request.
BATCH = {REBOOT: 25, REPLACE: 25, DELETE: 99}
POLL_SECONDS = 30
# Simulated seconds before WaitNodes gives up on a node. AWS: a reboot takes ~1-3 min and a replacement
# ~20-30 min (a new instance, its lifecycle scripts, deep health checks when the group runs them).
DEADLINE_SECONDS = {REBOOT: 1800, REPLACE: 5400, DELETE: 1800, HEALTH_CHECK: 10800}
DATA_LOSS = (
    "Replacing or deleting a node destroys its instance volumes, root and secondary: whatever is stored on "
    "them is lost for good. Back up to S3 or FSx for Lustre first, then send acknowledgeDataLoss: true."
)
VERB = {REBOOT: "reboot", REPLACE: "replace", DELETE: "delete", HEALTH_CHECK: "health-check"}
PHASES: tuple[tuple[str, str], ...] = (
    ("StartAction", "Ask HyperPod to act on the nodes, in batches AWS accepts"),
    ("WaitNodes", "Follow every node to its terminal state"),
)


# What each action does to one node, in AWS's words where AWS gives them (SageMaker API reference).
_EFFECT = {
    REBOOT: ("BatchRebootClusterNodes", "its pods stop while it reboots, about 1-3 minutes"),
    REPLACE: (
        "BatchReplaceClusterNodes",
        "a new instance takes its place in about 20-30 minutes; its instance volumes are lost",
    ),
    DELETE: (
        "BatchDeleteClusterNodes",
        "the instance is terminated and its group shrinks; its instance volumes are lost",
    ),
}


def plan(kind: str, cluster: str, request: dict[str, Any]) -> WorkflowPlan:
    """The action with its steps: one per node (or per health-checked group), then the wait for them all."""
    return WorkflowPlan(
        kind=kind, target=cluster, request=request, phases=PHASES, role=role_for(kind), steps=steps(kind, request)
    )


def steps(kind: str, request: dict[str, Any]) -> list[PlanStepView]:
    if kind == HEALTH_CHECK:
        checks = ", ".join(request.get("checks") or [])
        why = f"StartClusterHealthCheck runs {checks}; the nodes take no new work until it ends"
        acted = [Step("check", _checked(t), why, "StartAction") for t in request.get("targets") or []]
    else:
        call, effect = _EFFECT[kind]
        parts = batches(list(request.get("nodeIds") or []), kind)
        acted = [
            Step(
                VERB[kind],
                f"node {node}",
                f"{call}{f' (call {i + 1} of {len(parts)})' if len(parts) > 1 else ''}: {effect}",
                "StartAction",
            )
            for i, part in enumerate(parts)
            for node in part
        ]
    why = "followed to its terminal state; a node AWS refuses or that does not end well is reported with why"
    return [s.view() for s in (*acted, Step("wait", "for each node above", why, "WaitNodes"))]


def _checked(target: dict[str, Any]) -> str:
    nodes = target.get("nodeIds")
    group = target["instanceGroup"]
    return f"nodes {', '.join(nodes)} of group {group}" if nodes else f"every node of group {group}"


def batches(node_ids: list[str], kind: str) -> list[list[str]]:
    size = BATCH[kind]
    return [node_ids[i : i + size] for i in range(0, len(node_ids), size)]


@dataclass(frozen=True)
class NodeActionAnswer:
    """A batch reboot, replace or delete's answer: the nodes HyperPod accepted, and each node it refused as
    StartActionOutput records it ({"nodeId", "code", "message"}: AWS's code and words)."""

    accepted: tuple[str, ...]
    refused: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class HealthCheckTarget:
    """Deep health checks on one instance group: the nodes named, or every node of the group."""

    group: str
    node_ids: tuple[str, ...] = ()


def health_check_targets(request: dict[str, Any]) -> tuple[HealthCheckTarget, ...]:
    return tuple(HealthCheckTarget(t["instanceGroup"], tuple(t.get("nodeIds") or ())) for t in request["targets"])


@dataclass
class NodeOutcome:
    nodeId: str
    done: bool
    ok: bool = False
    message: str = ""
    replacement: str | None = None


def _launched_after(summary: HyperPodNode, started: datetime) -> bool:
    launched = summary.launch_time
    return isinstance(launched, datetime) and launched >= started


def follow(
    kind: str,
    node_ids: list[str],
    nodes: dict[str, HyperPodNode],
    started: datetime,
    seen_down: set[str],
    polls: int,
) -> list[NodeOutcome]:
    """Where each accepted node stands. ``nodes``: ListClusterNodes summaries by instance id now;
    ``seen_down``: nodes already seen away from Running since the action (updated in place)."""
    out: list[NodeOutcome] = []
    taken: set[str] = set()
    for node_id in node_ids:
        summary = nodes.get(node_id)
        status = summary.status if summary else None
        message = summary.message if summary else ""
        if status and status != "Running":
            seen_down.add(node_id)
        if kind == DELETE:
            out.append(
                NodeOutcome(node_id, summary is None, summary is None, "deleted" if summary is None else str(status))
            )
            continue
        if kind == REPLACE:
            if summary is not None:
                out.append(NodeOutcome(node_id, False, message=f"still {status}: waiting for HyperPod to terminate it"))
                continue
            out.append(_replacement(node_id, nodes, started, taken))
            continue
        if summary is None:
            # HyperPod replaced it (node recovery after a failed check): the instance id is gone.
            out.append(NodeOutcome(node_id, True, False, "the instance is gone: HyperPod replaced it"))
        elif status == "Failure":
            out.append(NodeOutcome(node_id, True, False, f"Failure: {message}".rstrip(": ")))
        elif status == "Running" and (node_id in seen_down or polls >= 4):
            verb = "rebooted" if kind == REBOOT else "passed its deep health checks"
            out.append(NodeOutcome(node_id, True, True, f"{verb}; Running"))
        else:
            out.append(NodeOutcome(node_id, False, message=f"{status} {message}".strip()))
    return out


def _replacement(old: str, nodes: dict[str, HyperPodNode], started: datetime, taken: set[str]) -> NodeOutcome:
    """A replaced node is done when a new instance launched since the action settles (the old id is gone)."""
    fresh = [
        (node_id, s)
        for node_id, s in sorted(nodes.items(), key=lambda kv: str(kv[1].launch_time))
        if node_id not in taken and _launched_after(s, started)
    ]
    if not fresh:
        return NodeOutcome(old, False, message="terminated; waiting for the new instance")
    node_id, summary = fresh[0]
    taken.add(node_id)
    status, text = summary.status, summary.message
    if status == "Running":
        return NodeOutcome(old, True, True, f"replaced by {node_id}; Running", node_id)
    if status == "Failure":
        return NodeOutcome(
            old,
            True,
            False,
            f"replaced by {node_id}, which failed: {text}. HyperPod does not retry a failed replacement.",
            node_id,
        )
    return NodeOutcome(old, False, message=f"replacement {node_id} is {status}", replacement=node_id)


def summary_line(kind: str, outcomes: list[NodeOutcome], refused: list[dict[str, str]]) -> str:
    ok = [o for o in outcomes if o.done and o.ok]
    bad = [o for o in outcomes if o.done and not o.ok]
    parts = [f"{len(ok)} of {len(outcomes) + len(refused)} nodes: {VERB[kind]} done"]
    parts += [f"{o.nodeId}: {o.message}" for o in ok]
    parts += [f"{o.nodeId} FAILED: {o.message}" for o in bad]
    parts += [f"{r['nodeId']} refused by AWS ({r['code']}): {r['message']}" for r in refused]
    return "; ".join(parts)


def check_known(request: dict[str, Any], nodes: list[HyperPodNode]) -> None:
    """Every node the request names is one of the cluster's (ListClusterNodes' summaries), and a health
    check's nodes are in the group they are named under: 422 naming the others, before anything starts.
    AWS would refuse them only inside the workflow, one batch at a time."""
    group_of = {n.node_id: n.group for n in nodes}
    if "targets" in request:
        named = [(node, t["instanceGroup"]) for t in request["targets"] for node in t.get("nodeIds") or []]
        field = "body.targets"
    else:
        named = [(node, None) for node in request.get("nodeIds") or []]
        field = "body.nodeIds"
    unknown = [node for node, _ in named if node not in group_of]
    elsewhere = [
        f"{node} (in {group_of[node]})" for node, group in named if group and group_of.get(node, group) != group
    ]
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        raise InvalidInput(
            f"The cluster has no node {shown}; list the cluster's nodes for their ids.", field=field, rule="known_node"
        )
    if elsewhere:
        raise InvalidInput(
            f"Nodes {', '.join(elsewhere[:10])} are not in the instance group they are named under.",
            field=field,
            rule="node_in_group",
        )
