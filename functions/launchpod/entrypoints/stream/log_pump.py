"""The live log pump's Lambda: one invocation of usecases.log_pump.pump, handed the topic, the lease
holder and the cursor by the subscription that started it or by its previous invocation."""

from __future__ import annotations

from typing import Any

from launchpod.domain.jobs.log_cursor import Cursor
from launchpod.entrypoints.observability import logger
from launchpod.usecases import log_pump, regions


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    run = log_pump.Invocation(
        topic=str(event["topic"]),
        holder=str(event["holder"]),
        cursor=Cursor.from_dict(event.get("cursor")),
        container=event.get("container"),
        handovers=int(event.get("handovers") or 0),
    )
    me = log_pump.Lambda(context.function_name, context.get_remaining_time_in_millis)
    with regions.in_cluster_region(log_pump.topic_parts(run.topic)[0]):  # the pod's cluster's EKS endpoint
        return log_pump.pump(run, me, ports=log_pump.real())
