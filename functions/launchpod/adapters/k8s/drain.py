"""Draining a Node as ``kubectl drain`` does (https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/):
cordon (``spec.unschedulable``), then the Eviction API for each pod, which refuses with 429 while a
PodDisruptionBudget allows no disruption (https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/);
uncordon when the node stays. Bodies go as dicts: the client JSON-encodes them itself for these content types."""

from __future__ import annotations

from launchpod.adapters.k8s.apply import _call
from launchpod.domain.errors import PermanentError, RetryableError


def _unschedulable(cluster: str, node: str, value: bool) -> None:
    _call(
        cluster,
        "PATCH",
        f"/api/v1/nodes/{node}",
        body={"spec": {"unschedulable": value or None}},
        content_type="application/merge-patch+json",
    )


def cordon(cluster: str, node: str) -> None:
    _unschedulable(cluster, node, True)


def uncordon(cluster: str, node: str) -> None:
    _unschedulable(cluster, node, False)


def _status(exc: Exception) -> int | None:
    return getattr(exc.__cause__, "status", None)


def evict(cluster: str, namespace: str, pod: str) -> bool:
    """Evict one pod; False when a disruption budget holds it for now (429), True when it goes or is gone."""
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod, "namespace": namespace}}
    try:
        _call(
            cluster,
            "POST",
            f"/api/v1/namespaces/{namespace}/pods/{pod}/eviction",
            body=body,
            content_type="application/json",
        )
    except RetryableError as exc:
        if _status(exc) == 429:
            return False
        raise
    except PermanentError as exc:
        if _status(exc) == 404:
            return True
        raise
    return True
