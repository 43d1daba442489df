"""Users' preferences, one item per user (the authenticated subject)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call


class DynamoPreferences:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, subject: str) -> dict[str, Any]:
        with aws_call("dynamodb:GetItem"):
            return dict(self.table.get_item(Key={"subject": subject}).get("Item") or {"subject": subject})

    def set_active_cluster(self, subject: str, cluster: str | None) -> dict[str, Any]:
        with aws_call("dynamodb:PutItem"):
            item = {"subject": subject, "activeCluster": cluster}
            self.table.put_item(Item=item)
        return item
