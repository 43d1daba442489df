"""The cluster's Kubernetes Nodes as add-on health sees them (``set_node_reader``), and whether the
scheduler would place an add-on's replica on one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandbox.aws.state import STATE


@dataclass
class NodeReaderState:
    """How add-on health reads a cluster's Kubernetes Nodes."""

    node_reader: Callable[[str], list[dict[str, Any]]] | None = None


def _state() -> NodeReaderState:
    return STATE.of(NodeReaderState)


def set_node_reader(reader: Callable[[str], list[dict[str, Any]]] | None) -> None:
    """Use ``reader(cluster_name) -> Node objects`` to see the cluster's Kubernetes Nodes (None: no nodes).

    Add-on health follows its workloads, and a Deployment's replicas need a node to run on.
    """
    _state().node_reader = reader


def cluster_nodes(cluster_name: str) -> list[dict[str, Any]]:
    reader = _state().node_reader
    if reader is None:
        return []
    try:
        return list(reader(cluster_name))
    except KeyError:  # no Kubernetes API server for the cluster (yet): it has no nodes
        return []


# Tolerations the EKS add-ons' Deployments carry (coredns: CriticalAddonsOnly and the control-plane taint).
_ADDON_TOLERATED_TAINTS = {"CriticalAddonsOnly", "node-role.kubernetes.io/control-plane"}


def can_host(node: dict[str, Any]) -> bool:
    """Whether the scheduler would place an add-on's replica on ``node``: it is Ready, not cordoned, and
    carries no NoSchedule/NoExecute taint the replica does not tolerate
    (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)."""
    spec, status = node.get("spec") or {}, node.get("status") or {}
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
    if not ready or spec.get("unschedulable"):
        return False
    return all(
        t.get("effect") not in ("NoSchedule", "NoExecute") or t.get("key") in _ADDON_TOLERATED_TAINTS
        for t in spec.get("taints") or []
    )
