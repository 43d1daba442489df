"""HyperPod node health events ("SageMaker HyperPod Cluster Node Health Event"): pushed, logged and folded
into the node's incident, where the remediation ladder decides the next step (usecases.events.node_health)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.observability import logger
from launchpod.usecases import regions, remediation
from launchpod.usecases.events import node_health


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    with regions.in_region(event.region):  # the node's cluster is in the Region whose bus sent the event
        return node_health.reported(dict(event.detail), event.time, ports=remediation.real())
