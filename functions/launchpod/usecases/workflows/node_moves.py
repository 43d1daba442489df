"""The move-nodes workflow's phases: Drain (cordon, evict, until no pod but DaemonSet and mirror pods is
left), Move (MoveClusterNodes with the drained nodes, AWS's refusals recorded and those nodes uncordoned)
and WaitMoved (each node followed until it runs in the target group). See domain.nodes.moves."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import DrainOutput, MoveOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes import moves, views
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult


def _node_names(cluster: str, node_ids: list[str]) -> list[str]:
    nodes = views.by_instance(wiring.kube_listing().items(cluster, "Node"))
    return sorted(str(nodes[i]["metadata"]["name"]) for i in node_ids if i in nodes)


def drain(doc: WorkflowInput) -> PhaseResult:
    """Drain: cordons the nodes' Kubernetes Nodes, evicts their pods, and looks again until none is left; a pod
    a PodDisruptionBudget holds past the deadline fails the operation, naming it."""
    cluster, lister, drainer = doc.target, wiring.kube_listing(), wiring.kube_drain()
    names = _node_names(cluster, list(doc.request["nodeIds"]))
    for name in names:
        drainer.cordon(cluster, name)
    held = [
        f"{ns}/{pod}"
        for ns, pod in moves.evictable(lister.items(cluster, "Pod"), set(names))
        if not drainer.evict(cluster, ns, pod)
    ]
    left = moves.evictable(lister.items(cluster, "Pod"), set(names))
    if left:
        polls = doc.poll.get("Drain", 0)
        pods = ", ".join(f"{ns}/{pod}" for ns, pod in left)
        if polls * moves.POLL_SECONDS >= moves.DRAIN_DEADLINE_SECONDS:
            budget = f" ({', '.join(held)} held by a PodDisruptionBudget)" if held else ""
            raise PermanentError(
                f"Pods still on the nodes after {polls * moves.POLL_SECONDS // 60} min: {pods}{budget}. The nodes stay"
                " cordoned; move or delete those pods, then retry the operation."
            )
        return PhaseResult(
            ready=False, wait=moves.POLL_SECONDS, message=f"Waiting for {len(left)} pod(s) to go: {pods}"
        )
    return PhaseResult(
        outputs=DrainOutput(cordoned=names),
        message=f"Drained {len(names)} node(s): cordoned, every pod but DaemonSet pods evicted.",
    )


def _arn(name: str) -> str:
    found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise PermanentError(f"{name} has no HyperPod cluster any more.")
    return found.arn


def move(doc: WorkflowInput) -> PhaseResult:
    """Move: MoveClusterNodes with the drained nodes (the operation id as ClientToken, so a retried call answers
    what the first did); nodes AWS refuses are recorded with AWS's code and uncordoned."""
    request, cordoned = doc.request, doc.require(DrainOutput).cordoned
    asked = moves.NodeMove(
        source_cluster_arn=_arn(doc.target),
        source_group=request["sourceGroup"],
        target_cluster_arn=_arn(request["targetCluster"]),
        target_group=request["targetGroup"],
        node_ids=tuple(request["nodeIds"]),
        client_token=doc.operationId[:64],
    )
    drainer = wiring.kube_drain()
    try:
        answer = wiring.sagemaker().move_nodes(asked)
    except PermanentError:
        for name in cordoned:  # nothing moved: the nodes take work again
            drainer.uncordon(doc.target, name)
        raise
    accepted, refused = list(answer.accepted), [r.recorded() for r in answer.refused]
    for name in _node_names(doc.target, [r.node_id for r in answer.refused]):
        drainer.uncordon(doc.target, name)
    if not accepted:
        raise PermanentError(f"AWS moved none of the nodes: {moves.refused_line(refused)}.")
    note = f"; refused: {moves.refused_line(refused)}" if refused else ""
    return PhaseResult(
        outputs=MoveOutput(accepted=accepted, refused=refused),
        wait=moves.POLL_SECONDS,
        message=f"HyperPod accepted the move of {len(accepted)} node(s){note}.",
    )


def wait_moved(doc: WorkflowInput) -> PhaseResult:
    """WaitMoved: follows every accepted node (DetachInProgress in the source, AttachInProgress then Running in
    the target group); a node that fails, or that AWS refused, fails the operation with its reason."""
    moved, request = doc.require(MoveOutput), doc.request
    sm, target = wiring.sagemaker(), request["targetCluster"]
    source = sm.list_nodes(hyperpod.hyperpod_name(doc.target))
    there = source if target == doc.target else sm.list_nodes(hyperpod.hyperpod_name(target))
    where = moves.follow(moved.accepted, source, there, request["targetGroup"])
    waiting = [w for w in where if not w.done]
    destination = f"group {request['targetGroup']}" + (f" of cluster {target}" if target != doc.target else "")
    if waiting:
        polls = doc.poll.get("WaitMoved", 0)
        line = "; ".join(f"{w.node_id}: {w.message}" for w in waiting)
        if polls * moves.POLL_SECONDS >= moves.MOVE_DEADLINE_SECONDS:
            raise PermanentError(f"Nodes still moving after {polls * moves.POLL_SECONDS // 60} min: {line}")
        return PhaseResult(
            ready=False, wait=moves.POLL_SECONDS, message=f"{len(waiting)} of {len(where)} still moving: {line}"
        )
    failed = [w for w in where if not w.ok]
    line = f"{len(where) - len(failed)} node(s) Running in {destination}"
    if failed or moved.refused:
        problems = [f"{w.node_id} {w.message}" for w in failed] + (
            [moves.refused_line(moved.refused)] if moved.refused else []
        )
        raise PermanentError(f"{line}; not moved: {'; '.join(problems)}.")
    return PhaseResult(message=f"{line}, with their instances and capacity.")
