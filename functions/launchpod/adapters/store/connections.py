"""WebSocket connections and their topic subscriptions, in one table.

Items: ``conn#<id>`` / ``meta`` (the management endpoint and the topics), and ``topic#<topic>`` /
``conn#<id>`` (one per subscription, so a push queries one partition). Both expire after a day,
as API Gateway closes WebSocket connections after two hours anyway.
"""

from __future__ import annotations

import time
from typing import Any

from boto3.dynamodb.conditions import Key

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call

_DAY = 86400


class DynamoConnections:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def connect(self, connection_id: str, endpoint: str, subject: str) -> None:
        with aws_call("dynamodb:PutItem"):
            self.table.put_item(
                Item={
                    "pk": f"conn#{connection_id}",
                    "sk": "meta",
                    "endpoint": endpoint,
                    "subject": subject,
                    "topics": [],
                    "expiresAt": int(time.time()) + _DAY,
                }
            )

    def meta(self, connection_id: str) -> dict[str, Any] | None:
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"pk": f"conn#{connection_id}", "sk": "meta"}).get("Item")
        return dict(item) if item is not None else None

    def subscribe(self, connection_id: str, topics: list[str]) -> list[str]:
        meta = self.meta(connection_id)
        if meta is None:
            return []
        current = list(meta.get("topics", []))
        with aws_call("dynamodb:BatchWriteItem"), self.table.batch_writer() as batch:
            for topic in topics:
                batch.put_item(
                    Item={
                        "pk": f"topic#{topic}",
                        "sk": f"conn#{connection_id}",
                        "endpoint": meta["endpoint"],
                        "expiresAt": int(time.time()) + _DAY,
                    }
                )
        merged = sorted(set(current) | set(topics))
        self._set_topics(connection_id, merged)
        return merged

    def unsubscribe(self, connection_id: str, topics: list[str]) -> list[str]:
        meta = self.meta(connection_id) or {}
        with aws_call("dynamodb:BatchWriteItem"), self.table.batch_writer() as batch:
            for topic in topics:
                batch.delete_item(Key={"pk": f"topic#{topic}", "sk": f"conn#{connection_id}"})
        remaining = sorted(set(meta.get("topics", [])) - set(topics))
        if meta:
            self._set_topics(connection_id, remaining)
        return remaining

    def _set_topics(self, connection_id: str, topics: list[str]) -> None:
        with aws_call("dynamodb:UpdateItem"):
            self.table.update_item(
                Key={"pk": f"conn#{connection_id}", "sk": "meta"},
                UpdateExpression="SET topics = :t",
                ExpressionAttributeValues={":t": topics},
            )

    def disconnect(self, connection_id: str) -> None:
        meta = self.meta(connection_id)
        if meta:
            self.unsubscribe(connection_id, list(meta.get("topics", [])))
        with aws_call("dynamodb:DeleteItem"):
            self.table.delete_item(Key={"pk": f"conn#{connection_id}", "sk": "meta"})

    def subscribers(self, topic: str) -> list[tuple[str, str]]:
        """(connection id, management endpoint) of everyone subscribed to ``topic``."""
        with aws_call("dynamodb:Query"):
            items = self.table.query(KeyConditionExpression=Key("pk").eq(f"topic#{topic}"))["Items"]
        return [(str(i["sk"]).removeprefix("conn#"), str(i["endpoint"])) for i in items]
