"""HyperPod cluster state changes: recorded on the cluster and pushed to its subscribers, so consoles and
agents see Creating -> InService (or Failed, with the message) as it happens; a workflow waiting for the
cluster to settle (create-hyperpod's AwaitInService) is woken at once."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.cluster_record import Source
from launchpod.runtime import wiring
from launchpod.usecases import streaming
from launchpod.usecases.events import cluster_name
from launchpod.usecases.ports import ClusterRecords

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)


class ClusterStates(ClusterRecords, Protocol):
    """The cluster registry, its records written and its parked waiter taken (adapters.store.clusters)."""

    def register(
        self, name: str, *, source: Source, region: str, hyperpod_status: str | None, hyperpod_status_at: str | None
    ) -> None: ...
    def take_waiter(self, name: str) -> str | None: ...


class TaskTokens(Protocol):
    """Step Functions' task tokens (adapters.aws.sfn): False when the execution no longer waits on it."""

    def send_task_success(self, task_token: str, output: dict[str, Any]) -> bool: ...


@dataclass(frozen=True)
class ClusterStatePorts:
    clusters: ClusterStates
    workflows: TaskTokens
    stream: streaming.StreamPorts


def real() -> ClusterStatePorts:
    """The deployed adapters (runtime.wiring)."""
    return ClusterStatePorts(clusters=wiring.clusters(), workflows=wiring.workflows(), stream=streaming.real())


def changed(detail: dict[str, Any], region: str, at: str, *, ports: ClusterStatePorts) -> dict[str, Any]:
    """Record a cluster's new HyperPod status, push it, and wake the workflow waiting for it to settle."""
    name = cluster_name(detail)
    status = detail.get("ClusterStatus")
    if not name:
        return {"recorded": False, "woken": False}
    woken = status in hyperpod.SETTLED_STATUSES and wake(name, str(status), ports=ports)
    record = ports.clusters.get(name)
    if record is None:
        return {"recorded": False, "woken": woken}
    ports.clusters.register(name, source=record.source, region=region, hyperpod_status=status, hyperpod_status_at=at)
    pushed, _ = streaming.publish(
        f"cluster:{name}",
        "cluster",
        {"name": name, "hyperpodStatus": status, "failureMessage": detail.get("FailureMessage")},
        ports=ports.stream,
    )
    return {"recorded": True, "cluster": name, "status": status, "pushed": pushed, "woken": woken}


def wake(name: str, status: str, *, ports: ClusterStatePorts) -> bool:
    """Hand the settled status to the workflow parked on this cluster, if one is."""
    token = ports.clusters.take_waiter(name)
    if token is None:
        return False
    woken = ports.workflows.send_task_success(token, {"status": status, "wokenBy": "event"})
    log.info("woke the workflow waiting for HyperPod", extra={"cluster": name, "status": status, "woken": woken})
    return woken
