"""HyperPod node health events: pushed to the cluster's subscribers and logged with the node and the
repair HyperPod chose, then folded into the node's incident, where the remediation ladder decides the
next step (usecases.remediation)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from launchpod.domain.errors import LaunchpodError
from launchpod.domain.nodes import ladder
from launchpod.usecases import remediation, streaming
from launchpod.usecases.events import cluster_name
from launchpod.usecases.ports import KubeReader

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)


def boot_id(cluster: str, instance_id: str, *, read: KubeReader) -> str | None:
    """The node's current boot (Kubernetes Node status.nodeInfo.bootID; HyperPod names Nodes hyperpod-<id>)."""
    try:
        node = read(cluster, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"hyperpod-{instance_id}"}})
    except LaunchpodError:
        return None
    boot = ((node or {}).get("status") or {}).get("nodeInfo", {}).get("bootID")
    return str(boot) if boot else None


def _time(value: str | None) -> datetime:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return datetime.now(UTC)


def reported(detail: dict[str, Any], at: str, *, ports: remediation.RemediationPorts) -> dict[str, Any]:
    """Push and log one node-health event, and fold it into the node's incident."""
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
        "time": at,
    }
    log.info("node health event", extra=data)
    pushed, _ = streaming.publish(f"cluster:{name}", "node-health", data, ports=ports.stream)
    result: dict[str, Any] = {"pushed": pushed, **data}
    if data["healthStatus"] not in ladder.HEALTH_STATUSES:
        # Only the statuses AWS documents for this event (Healthy, Unhealthy) move the ladder: anything else
        # (a status this version does not know) is pushed and logged for a person, and never reboots a node.
        log.warning("node health status the ladder does not act on", extra=data)
        result["ladder"] = {"ignored": f"HealthStatus {data['healthStatus']!r} is neither Healthy nor Unhealthy"}
    elif data["instanceId"]:
        health = ladder.HealthEvent(
            cluster=name,
            node_id=str(data["instanceId"]),
            healthy=data["healthStatus"] == "Healthy",
            reason=data["reason"],
            recommendation=data["recommendation"],
            repair_action=data["repairAction"],
            at=_time(at),
            boot_id=boot_id(name, str(data["instanceId"]), read=ports.read),
        )
        result["ladder"] = remediation.on_health_event(health, ports=ports)
    return result
