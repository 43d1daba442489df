"""HyperPod cluster events ("SageMaker HyperPod Cluster Event": provisioning, scaling, patching, per
cluster, instance group or instance; only with NodeProvisioningMode Continuous,
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-events-reference.html): logged
and pushed to the cluster's subscribers, so an open console shows them as they come."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.events.cluster_state import cluster_name
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    details = dict(event.detail).get("EventDetails") or {}
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
    (logger.warning if data["level"] == "Error" else logger.info)("hyperpod cluster event", extra=data)
    pushed, _ = publish(f"cluster:{name}", "cluster-event", data)
    return {"pushed": pushed, **data}
