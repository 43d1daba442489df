"""The node-action workflows' phases (reboot-nodes, replace-nodes, delete-nodes and health-check share them):
the action asked of HyperPod, every node followed to its end, and the remediation ladder's follow-up once the
operation has released the cluster."""

from __future__ import annotations

from datetime import UTC, datetime

from launchpod.contracts.phase_outputs import StartActionOutput, WaitNodesOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes import actions
from launchpod.runtime import wiring
from launchpod.usecases import remediation
from launchpod.usecases.workflows.phase import PhaseResult


def start_action(doc: WorkflowInput) -> PhaseResult:
    """StartAction: asks HyperPod to reboot, replace or delete the nodes (in batches AWS accepts), or to run
    deep health checks on them; records the nodes AWS accepted and, one by one, those it refused."""
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    started = datetime.now(UTC).isoformat()
    if doc.kind == actions.HEALTH_CHECK:
        nodes = sm.list_nodes(name)
        targeted: list[str] = []
        for target in doc.request["targets"]:
            ids = target.get("nodeIds") or [n.node_id for n in nodes if n.group == target["instanceGroup"]]
            targeted += ids
        sm.start_health_check(name, doc.request["checks"], actions.health_check_targets(doc.request))
        return PhaseResult(
            outputs=StartActionOutput(accepted=targeted, started=started),
            message=f"Deep health checks ({', '.join(doc.request['checks'])}) started on {len(targeted)} nodes.",
        )
    verb = actions.VERB[doc.kind]
    accepted: list[str] = []
    refused: list[dict[str, str]] = []
    for batch in actions.batches(list(doc.request["nodeIds"]), doc.kind):
        try:
            answer = sm.node_action(verb, name, batch)
        except PermanentError as exc:
            if verb != "replace" or exc.extra.get("aws_code") != "ValidationException":
                raise
            # AWS refuses replacement on a cluster created before BatchReplaceClusterNodes until it is
            # patched (API reference, BatchReplaceClusterNodes): say how, after AWS's own words.
            raise PermanentError(
                f"{exc.message} HyperPod replaces nodes only on a cluster whose software was updated since: update"
                f" the software of {doc.target}'s instance groups, wait until that operation succeeds, then replace"
                " again.",
                aws_code="ValidationException",
            ) from exc
        accepted += answer.accepted
        refused += answer.refused
    if not accepted:
        raise PermanentError(actions.summary_line(doc.kind, [], refused))
    remediation.acting(doc.target, doc.kind, accepted, doc.operationId, ports=remediation.real())
    note = f"; {len(refused)} refused by AWS" if refused else ""
    return PhaseResult(
        outputs=StartActionOutput(accepted=accepted, refused=refused, started=started),
        message=f"HyperPod accepted {verb} of {len(accepted)} nodes{note}.",
    )


WAIT_NODES = "WaitNodes"


def wait_nodes(doc: WorkflowInput) -> PhaseResult:
    """WaitNodes: follows every node the action was accepted for to its terminal state (Running again,
    replaced and Running, gone, or failed), then reports each node; any that did not end well fails the
    operation with its reason."""
    start = doc.require(StartActionOutput)
    accepted, refused = list(start.accepted), list(start.refused)
    started = datetime.fromisoformat(start.started)
    nodes = {n.node_id: n for n in wiring.sagemaker().list_nodes(hyperpod.hyperpod_name(doc.target))}
    polls = doc.poll.get(WAIT_NODES, 0)
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
    remediation.ended(doc.target, doc.kind, outcomes, doc.operationId, ports=remediation.real())
    if refused or any(not o.ok for o in outcomes):
        raise PermanentError(line)
    replaced = {o.nodeId: o.replacement for o in outcomes if o.replacement}
    return PhaseResult(outputs=WaitNodesOutput(replacements=replaced), message=line)


def follow_up(doc: WorkflowInput) -> list[str]:
    """FollowUp: after Finish released the cluster, run (policy auto) or suggest what the remediation ladder
    decided while the node action ran, such as a replacement for a node still unhealthy after its reboot.
    Answers the incidents whose next step ran; a LaunchpodError says why it could not run."""
    start, waited = doc.output(StartActionOutput), doc.output(WaitNodesOutput)
    nodes = (start.accepted if start else []) + (list(waited.replacements.values()) if waited else [])
    return remediation.follow_up(doc.target, nodes, ports=remediation.real())
