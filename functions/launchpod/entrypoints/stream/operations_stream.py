"""Pushes every change of an operation, from the table's DynamoDB stream, to the WebSocket
clients subscribed to ``operation:<id>`` or ``cluster:<name>``; forgets connections that are gone."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import DynamoDBStreamEvent, event_source

from launchpod.adapters.store.dynamo import attrs_to_item
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish


@logger.inject_lambda_context(clear_state=True)
@event_source(data_class=DynamoDBStreamEvent)
def handler(event: DynamoDBStreamEvent, context: Any) -> dict[str, Any]:
    pushed = gone = 0
    for record in event.records:
        raw = (record.raw_event.get("dynamodb") or {}).get("NewImage")
        if not raw:
            continue
        view = DynamoOperations.view_of(attrs_to_item(raw))
        data = view.model_dump(mode="json")
        for topic in (f"operation:{view.id}", f"cluster:{view.target}"):
            sent, lost = publish(topic, "operation", data)
            pushed, gone = pushed + sent, gone + lost
    return {"pushed": pushed, "gone": gone}
