"""SageMaker HyperPod Cluster State Change events: each cluster status change ``sync_nodes`` sees goes to the
state sink (``eventbridge_state_sink`` puts it on EventBridge's default bus, as SageMaker does)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker.common import LOCK, log
from sandbox.aws.sagemaker.models import HyperPodCluster
from sandbox.aws.state import STATE

STATE_CHANGE = "SageMaker HyperPod Cluster State Change"


@dataclass
class StateSinkState:
    """Where cluster status changes go, and what it was last told."""

    state_sink: Callable[[str, str, dict[str, Any]], None] | None = None  # where status changes go
    announced: dict[tuple[str, str, str], str] = field(
        default_factory=dict
    )  # (account, region, cluster ARN) -> last status announced


def _state() -> StateSinkState:
    return STATE.of(StateSinkState)


def set_state_sink(fn: Callable[[str, str, dict[str, Any]], None] | None) -> None:
    """Call ``fn(account, region, detail)`` for every cluster status change ``sync_nodes`` sees."""
    with LOCK:
        _state().state_sink = fn
        _state().announced.clear()


def status_changes(backend: SageMakerModelBackend) -> list[tuple[str, str, dict[str, Any]]]:
    """The clusters whose status moved since the last announcement (call under lock)."""
    if _state().state_sink is None:
        return []
    out: list[tuple[str, str, dict[str, Any]]] = []
    for cluster in backend.clusters.values():
        if not isinstance(cluster, HyperPodCluster):
            continue
        status, key = cluster.status, (backend.account_id, backend.region_name, cluster.arn)
        if _state().announced.get(key) == status:
            continue
        _state().announced[key] = status
        detail = {
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.cluster_name,
            "ClusterStatus": status,
            "CreationTime": cluster.creation_time.isoformat(),
            "NodeRecovery": cluster.node_recovery,
        }
        if status == "Failed" and cluster.failure_message:
            detail["FailureMessage"] = cluster.failure_message
        out.append((backend.account_id, backend.region_name, detail))
    return out


def announce_changes(changes: list[tuple[str, str, dict[str, Any]]]) -> None:
    sink = _state().state_sink
    if sink is None:
        return
    for account, region, detail in changes:
        try:
            sink(account, region, detail)
        except Exception:
            log.warning("state sink failed for %s", detail["ClusterName"], exc_info=True)


def eventbridge_state_sink(account: str, region: str, detail: dict[str, Any]) -> None:
    """Announce on EventBridge's default bus, as SageMaker does."""
    from sandbox.aws import eventbridge

    eventbridge.put_event(account, region, "aws.sagemaker", STATE_CHANGE, detail, [detail["ClusterArn"]])
