"""HyperPod cluster events ("SageMaker HyperPod Cluster Event": provisioning, scaling, patching, per
cluster, instance group or instance; only with NodeProvisioningMode Continuous,
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-events-reference.html): logged
and pushed to the cluster's subscribers, so an open console shows them as they come."""

from __future__ import annotations

import logging
from typing import Any

from launchpod.usecases import streaming
from launchpod.usecases.events import cluster_name

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)


def happened(details: dict[str, Any], *, ports: streaming.StreamPorts) -> dict[str, Any]:
    """Log the event and push it on the cluster's topic."""
    name = cluster_name(details)
    if not name:
        return {"pushed": 0}
    data = {
        "cluster": name,
        "eventId": details.get("EventId"),
        "resourceType": details.get("ResourceType"),
        "instanceGroup": details.get("InstanceGroupName"),
        "instanceId": details.get("InstanceId"),
        "level": details.get("EventLevel"),
        "description": details.get("Description"),
        "eventTime": details.get("EventTime"),
    }
    (log.warning if data["level"] == "Error" else log.info)("hyperpod cluster event", extra=data)
    pushed, _ = streaming.publish(f"cluster:{name}", "cluster-event", data, ports=ports)
    return {"pushed": pushed, **data}
