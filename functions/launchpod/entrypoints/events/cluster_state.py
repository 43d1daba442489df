"""HyperPod cluster state changes ("SageMaker HyperPod Cluster State Change"): recorded on the cluster,
pushed to its subscribers, and the workflow waiting for the cluster to settle woken
(usecases.events.cluster_state)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent, event_source

from launchpod.entrypoints.observability import logger
from launchpod.usecases import regions
from launchpod.usecases.events import cluster_state


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=EventBridgeEvent)
def handler(event: EventBridgeEvent, context: Any) -> dict[str, Any]:
    with regions.in_region(event.region):  # the cluster is in the Region whose bus sent the event
        return cluster_state.changed(dict(event.detail), event.region, event.time, ports=cluster_state.real())
