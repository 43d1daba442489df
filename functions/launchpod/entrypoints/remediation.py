"""The remediation ladder as the node-action workflow's phases call it (usecases.remediation), on the
deployed ports."""

from __future__ import annotations

from launchpod.domain.nodes import actions
from launchpod.usecases import remediation


def acting(cluster: str, kind: str, node_ids: list[str], operation_id: str) -> None:
    """A node action started on nodes with open incidents (by the ladder or by anyone)."""
    remediation.acting(cluster, kind, node_ids, operation_id, ports=remediation.real())


def ended(cluster: str, kind: str, outcomes: list[actions.NodeOutcome], operation_id: str) -> None:
    """A node action ended: each node's outcome moves its incident up the ladder (or closes it)."""
    remediation.ended(cluster, kind, outcomes, operation_id, ports=remediation.real())


def follow_up(cluster: str, node_ids: list[str]) -> list[str]:
    """After a node action released the cluster: run (auto) or suggest what was decided while it ran."""
    return remediation.follow_up(cluster, node_ids, ports=remediation.real())
