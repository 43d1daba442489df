"""HyperPod cluster events ("SageMaker HyperPod Cluster Event"): logged and pushed to the cluster's
subscribers (usecases.events.cluster_event)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.observability import logger
from launchpod.usecases import streaming
from launchpod.usecases.events import cluster_event


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    details = dict(event.detail).get("EventDetails") or {}
    return cluster_event.happened(details, ports=streaming.real())
