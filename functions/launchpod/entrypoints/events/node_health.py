"""HyperPod node health events: pushed to the cluster's subscribers and logged with the node and
the repair HyperPod chose, so diagnostics can follow a node from fault to recovery."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.events.cluster_state import cluster_name
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish


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
        "time": event.time,
    }
    logger.info("node health event", extra=data)
    pushed, _ = publish(f"cluster:{name}", "node-health", data)
    return {"pushed": pushed, **data}
