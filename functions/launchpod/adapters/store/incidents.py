"""Incidents and the ladder policy, one item per cluster, written with optimistic concurrency: AWS sends
health events in pairs, and two handlers folding the same pair must not open two incidents."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call, error_code

KEEP = 200  # incidents kept per cluster, newest first (an item stays far below DynamoDB's 400 KB)


class DynamoIncidents:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, cluster: str) -> tuple[dict[str, Any], int]:
        """({"policy": str | None, "incidents": [...]}, version); version 0 when nothing is stored yet."""
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"cluster": cluster}, ConsistentRead=True).get("Item")
        if not item:
            return {"policy": None, "incidents": []}, 0
        return json.loads(str(item["body"])), int(item["version"])

    def put(self, cluster: str, doc: dict[str, Any], version: int) -> bool:
        """Store ``doc`` if nobody wrote since ``version`` was read; False when someone did."""
        doc = {**doc, "incidents": sorted(doc["incidents"], key=lambda i: i["openedAt"], reverse=True)[:KEEP]}
        condition = "attribute_not_exists(#c)" if version == 0 else "#v = :old"
        values: dict[str, Any] = {":new": version + 1, ":body": json.dumps(doc)}
        if version:
            values[":old"] = version
        with aws_call("dynamodb:UpdateItem"):
            try:
                self.table.update_item(
                    Key={"cluster": cluster},
                    UpdateExpression="SET #v = :new, body = :body",
                    ConditionExpression=condition,
                    ExpressionAttributeNames={"#v": "version", **({"#c": "cluster"} if version == 0 else {})},
                    ExpressionAttributeValues=values,
                )
            except ClientError as exc:
                if error_code(exc) == "ConditionalCheckFailedException":
                    return False
                raise
        return True
