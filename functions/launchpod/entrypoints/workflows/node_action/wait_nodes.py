"""WaitNodes: follows every node the action was accepted for to its terminal state (Running again,
replaced and Running, gone, or failed), then reports each node; any that did not end well fails the
operation with its reason."""

from __future__ import annotations

from datetime import datetime

from launchpod.contracts.phase_outputs import StartActionOutput, WaitNodesOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes import actions
from launchpod.entrypoints import remediation
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitNodes"


def run(doc: WorkflowInput) -> PhaseResult:
    start = doc.require(StartActionOutput)
    accepted, refused = list(start.accepted), list(start.refused)
    started = datetime.fromisoformat(start.started)
    nodes = {n["InstanceId"]: n for n in wiring.sagemaker().list_nodes(hyperpod.hyperpod_name(doc.target))}
    polls = doc.poll.get(PHASE, 0)
    seen = set(start.seenDown)
    outcomes = actions.follow(doc.kind, accepted, nodes, started, seen, polls)
    doc.record(start.model_copy(update={"seenDown": sorted(seen)}))  # carried to the next poll
    line = actions.summary_line(doc.kind, outcomes, refused)
    waiting = [o for o in outcomes if not o.done]
    if waiting:
        if polls * actions.POLL_SECONDS >= actions.DEADLINE_SECONDS[doc.kind]:
            stuck = "; ".join(f"{o.nodeId}: {o.message}" for o in waiting)
            raise PermanentError(f"Nodes still not settled after {polls * actions.POLL_SECONDS // 60} min: {stuck}")
        return PhaseResult(
            ready=False,
            wait=actions.POLL_SECONDS,
            message=f"{len(waiting)} of {len(outcomes)} nodes still settling: "
            + "; ".join(f"{o.nodeId}: {o.message}" for o in waiting),
        )
    remediation.ended(doc.target, doc.kind, outcomes, doc.operationId)
    if refused or any(not o.ok for o in outcomes):
        raise PermanentError(line)
    replaced = {o.nodeId: o.replacement for o in outcomes if o.replacement}
    return PhaseResult(outputs=WaitNodesOutput(replacements=replaced), message=line)


handler = phase(PHASE)(run)
