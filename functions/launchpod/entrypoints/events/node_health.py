"""HyperPod node health events: pushed to the cluster's subscribers and logged with the node and the
repair HyperPod chose, then folded into the node's incident, where the remediation ladder decides the
next step (entrypoints/remediation.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.adapters.k8s import apply as k8s
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.nodes import ladder
from launchpod.entrypoints import remediation
from launchpod.entrypoints.events.cluster_state import cluster_name
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish


def boot_id(cluster: str, instance_id: str) -> str | None:
    """The node's current boot (Kubernetes Node status.nodeInfo.bootID; HyperPod names Nodes hyperpod-<id>)."""
    try:
        node = k8s.read(cluster, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"hyperpod-{instance_id}"}})
    except LaunchpodError:
        return None
    boot = ((node or {}).get("status") or {}).get("nodeInfo", {}).get("bootID")
    return str(boot) if boot else None


def _time(value: str | None) -> datetime:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return datetime.now(UTC)


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    detail = dict(event.detail)
    name = cluster_name(detail)
    if not name:
        return {"pushed": 0}
    summary = detail.get("HealthSummary") or {}
    data = {
        "cluster": name,
        "instanceGroup": detail.get("InstanceGroupName"),
        "instanceId": detail.get("InstanceId") or detail.get("NodeId"),
        "healthStatus": summary.get("HealthStatus") or detail.get("HealthStatus"),
        "reason": summary.get("HealthStatusReason") or detail.get("HealthStatusReason"),
        "repairAction": summary.get("RepairAction") or detail.get("RepairAction"),
        "recommendation": summary.get("Recommendation"),
        "time": event.time,
    }
    logger.info("node health event", extra=data)
    pushed, _ = publish(f"cluster:{name}", "node-health", data)
    result: dict[str, Any] = {"pushed": pushed, **data}
    if data["healthStatus"] not in ladder.HEALTH_STATUSES:
        # Only the statuses AWS documents for this event (Healthy, Unhealthy) move the ladder: anything else
        # (a status this version does not know) is pushed and logged for a person, and never reboots a node.
        logger.warning("node health status the ladder does not act on", extra=data)
        result["ladder"] = {"ignored": f"HealthStatus {data['healthStatus']!r} is neither Healthy nor Unhealthy"}
    elif data["instanceId"]:
        health = ladder.HealthEvent(
            cluster=name,
            node_id=str(data["instanceId"]),
            healthy=data["healthStatus"] == "Healthy",
            reason=data["reason"],
            recommendation=data["recommendation"],
            repair_action=data["repairAction"],
            at=_time(event.time),
            boot_id=boot_id(name, str(data["instanceId"])),
        )
        result["ladder"] = remediation.on_health_event(health)
    return result
