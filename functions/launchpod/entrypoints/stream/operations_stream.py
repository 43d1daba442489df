"""Pushes every change of an operation, from the table's DynamoDB stream, to the WebSocket
clients subscribed to ``operation:<id>`` or ``cluster:<name>``; forgets connections that are gone."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import DynamoDBStreamEvent, event_source

from launchpod.entrypoints.observability import logger
from launchpod.usecases import streaming


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=DynamoDBStreamEvent)
def handler(event: DynamoDBStreamEvent, context: Any) -> dict[str, Any]:
    images = [image for r in event.records if (image := (r.raw_event.get("dynamodb") or {}).get("NewImage"))]
    pushed, gone = streaming.operations_changed(images, ports=streaming.real())
    return {"pushed": pushed, "gone": gone}
