"""Users' preferences, one item per user (the authenticated subject)."""

from __future__ import annotations

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call
from launchpod.domain.preferences import CallerPreferences


class DynamoPreferences:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, subject: str) -> CallerPreferences:
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"subject": subject}).get("Item") or {}
        active = item.get("activeCluster")
        return CallerPreferences(subject, str(active) if active is not None else None)

    def set_active_cluster(self, subject: str, cluster: str | None) -> CallerPreferences:
        with aws_call("dynamodb:PutItem"):
            self.table.put_item(Item={"subject": subject, "activeCluster": cluster})
        return CallerPreferences(subject, cluster)
