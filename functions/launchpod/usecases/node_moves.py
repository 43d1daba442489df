"""Moving nodes to another instance group (MoveClusterNodes), started as an operation: the clusters and
nodes read, every refusal AWS documents made before anything is drained (domain.nodes.moves), the nodes
chosen and the plan; the move-nodes workflow drains, moves and follows them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.nodes import MoveNodesRequest
from launchpod.contracts.operations import OperationView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import InvalidInput, LaunchpodError
from launchpod.domain.nodes import moves, views
from launchpod.runtime import wiring
from launchpod.usecases.ports import HyperPodMoves, KubeLister, Subnets


@dataclass(frozen=True)
class MovePorts:
    sagemaker: HyperPodMoves
    kube: KubeLister
    subnets: Subnets
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner


def real() -> MovePorts:
    """The deployed adapters (runtime.wiring)."""
    return MovePorts(
        sagemaker=wiring.sagemaker(),
        kube=wiring.kube_listing().items,
        subnets=wiring.ec2(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
    )


def _described(name: str, ports: MovePorts, field: str | None = None) -> HyperPodCluster:
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        if field:
            raise InvalidInput(f"{name} has no HyperPod cluster to move nodes to.", field=field, rule="known_cluster")
        raise hyperpod.no_hyperpod(name)
    return found


def _kube(name: str, ports: MovePorts) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """The cluster's Nodes by instance id and the evictable pods by node name; empty while unreadable (the
    drain reads them again)."""
    try:
        return views.by_instance(ports.kube(name, "Node")), moves.pods_by_node(ports.kube(name, "Pod"))
    except LaunchpodError:
        return {}, {}


def _zone(name: str, node_id: str, kube: dict[str, Any] | None, ports: MovePorts) -> str | None:
    labels = ((kube or {}).get("metadata") or {}).get("labels") or {}
    if labels.get(views.ZONE_LABEL):
        return str(labels[views.ZONE_LABEL])
    details = ports.sagemaker.describe_node(hyperpod.hyperpod_name(name), node_id)
    return details.zone if details else None


def move(name: str, body: MoveNodesRequest, who: ops.Principal, *, ports: MovePorts) -> OperationView:
    """Plan and start moving nodes of ``name``'s ``sourceGroup`` to ``targetGroup`` (of ``targetCluster``):
    422/409 with AWS's reason when the move does not apply; the plan on a dry run."""
    if not body.acknowledgeDataLoss:
        raise InvalidInput(moves.DATA_LOSS, field="body.acknowledgeDataLoss", rule="acknowledge_data_loss")
    target_name = body.targetCluster or name
    source = _described(name, ports)
    target = source if target_name == name else _described(target_name, ports, "body.targetCluster")
    from_group, to_group = moves.check_clusters(name, source, target_name, target, body.sourceGroup, body.targetGroup)
    listed = ports.sagemaker.list_nodes(hyperpod.hyperpod_name(name))
    kube, pods = _kube(name, ports)
    candidates = []
    for node in sorted(listed, key=lambda n: n.node_id):
        if node.group != body.sourceGroup:
            continue
        k = kube.get(node.node_id)
        node_name = ((k or {}).get("metadata") or {}).get("name")
        candidates.append(
            moves.Candidate(node, _zone(name, node.node_id, k, ports), pods.get(node_name, []) if node_name else [])
        )
    subnets = moves.group_subnets(target, to_group)
    zones = {s.zone for s in ports.subnets.subnets(subnets)} if subnets else set()
    chosen = moves.choose(body.model_dump(mode="json"), from_group, candidates, moves.group_types(to_group), zones)
    request = {**body.model_dump(mode="json"), "targetCluster": target_name}
    where = f"group {body.targetGroup}" + (f" of cluster {target_name}" if target_name != name else "")
    plan = moves.plan(name, request, chosen, from_group, where)
    operation, _ = ops.submit(ports.operations, ports.workflows, plan, who)
    return operation
