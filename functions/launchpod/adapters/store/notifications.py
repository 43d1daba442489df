"""Notification subscribers (one versioned item per cluster) and the record of what was sent, in one
table: a notification is claimed with a conditional put on its key (operation id + kind, incident id +
kind), so a retried handler or a repeated event never tells anyone twice."""

from __future__ import annotations

import json
import time
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call, error_code

SENT_DAYS = 30  # how long a sent notification's key is kept (the table's TTL removes it after)


class DynamoNotifications:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def subscribers(self, cluster: str) -> tuple[list[dict[str, Any]], int]:
        """The cluster's subscribers and the item's version (0 when nothing is stored yet)."""
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"pk": f"cluster#{cluster}"}, ConsistentRead=True).get("Item")
        if not item:
            return [], 0
        return list(json.loads(str(item["body"]))), int(item["version"])

    def put_subscribers(self, cluster: str, subscribers: list[dict[str, Any]], version: int) -> bool:
        """Store them if nobody wrote since ``version`` was read; False when someone did."""
        condition = "attribute_not_exists(pk)" if version == 0 else "#v = :old"
        values: dict[str, Any] = {":new": version + 1, ":body": json.dumps(subscribers)}
        if version:
            values[":old"] = version
        with aws_call("dynamodb:UpdateItem"):
            try:
                self.table.update_item(
                    Key={"pk": f"cluster#{cluster}"},
                    UpdateExpression="SET #v = :new, body = :body",
                    ConditionExpression=condition,
                    ExpressionAttributeNames={"#v": "version"},
                    ExpressionAttributeValues=values,
                )
            except ClientError as exc:
                if error_code(exc) == "ConditionalCheckFailedException":
                    return False
                raise
        return True

    def claim(self, key: str) -> bool:
        """True for the first caller with ``key``, False for every later one."""
        with aws_call("dynamodb:PutItem"):
            try:
                self.table.put_item(
                    Item={"pk": f"sent#{key}", "expiresAt": int(time.time()) + SENT_DAYS * 86400},
                    ConditionExpression="attribute_not_exists(pk)",
                )
            except ClientError as exc:
                if error_code(exc) == "ConditionalCheckFailedException":
                    return False
                raise
        return True
