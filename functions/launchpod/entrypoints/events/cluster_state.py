"""HyperPod cluster state changes: recorded on the cluster and pushed to its subscribers, so
consoles and agents see Creating -> InService (or Failed, with the message) as it happens; a
workflow waiting for the cluster to settle (create-hyperpod's AwaitInService) is woken at once."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.domain.clusters import hyperpod
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish
from launchpod.runtime import wiring


def cluster_name(detail: dict[str, Any]) -> str | None:
    """HyperPod events name the cluster; the HyperPod and EKS clusters share Launchpod's name."""
    name = detail.get("ClusterName") or str(detail.get("ClusterArn", "")).rpartition("/")[2]
    return name or None


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    detail = dict(event.detail)
    name = cluster_name(detail)
    status = detail.get("ClusterStatus")
    if not name:
        return {"recorded": False, "woken": False}
    woken = status in hyperpod.SETTLED_STATUSES and wake(name, str(status))
    record = wiring.clusters().get(name)
    if record is None:
        return {"recorded": False, "woken": woken}
    wiring.clusters().register(
        name,
        source=record["source"],
        region=event.region,
        hyperpodStatus=status,
        hyperpodStatusAt=event.time,
    )
    pushed, _ = publish(
        f"cluster:{name}",
        "cluster",
        {"name": name, "hyperpodStatus": status, "failureMessage": detail.get("FailureMessage")},
    )
    return {"recorded": True, "cluster": name, "status": status, "pushed": pushed, "woken": woken}


def wake(name: str, status: str) -> bool:
    """Hand the settled status to the workflow parked on this cluster, if one is."""
    token = wiring.clusters().take_waiter(name)
    if token is None:
        return False
    woken = wiring.workflows().send_task_success(token, {"status": status, "wokenBy": "event"})
    logger.info("woke the workflow waiting for HyperPod", extra={"cluster": name, "status": status, "woken": woken})
    return woken
