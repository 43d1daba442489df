"""The cluster registry: clusters Launchpod created or imported, and which operation holds each."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.adapters.store.dynamo import plain
from launchpod.domain.operations import now


class DynamoClusters:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, name: str) -> dict[str, Any] | None:
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"name": name}, ConsistentRead=True).get("Item")
        return dict(plain(item)) if item and item.get("registeredAt") else None

    def list(self) -> list[dict[str, Any]]:
        with aws_call("dynamodb:Scan"):
            items = self.table.scan()["Items"]
        return sorted((dict(plain(i)) for i in items if i.get("registeredAt")), key=lambda i: i["name"])

    def register(self, name: str, *, source: str, region: str, **facts: Any) -> None:
        """Record a cluster (idempotent); keeps the first registration time."""
        sets = {"source": source, "region": region, **facts}
        names = {f"#k{i}": k for i, k in enumerate(sets)}
        values = {f":v{i}": v for i, v in enumerate(sets.values())}
        expression = "SET registeredAt = if_not_exists(registeredAt, :now), " + ", ".join(
            f"#k{i} = :v{i}" for i in range(len(sets))
        )
        with aws_call("dynamodb:UpdateItem"):
            self.table.update_item(
                Key={"name": name},
                UpdateExpression=expression,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={**values, ":now": now().isoformat()},
            )

    def park_waiter(self, name: str, task_token: str) -> None:
        """Keep the task token of a workflow waiting for this cluster's HyperPod to settle."""
        with aws_call("dynamodb:UpdateItem"):
            self.table.update_item(
                Key={"name": name},
                UpdateExpression="SET hyperpodWaiter = :t",
                ExpressionAttributeValues={":t": task_token},
            )

    def take_waiter(self, name: str) -> str | None:
        """Remove and return the parked task token: of two callers, only one gets it."""
        with aws_call("dynamodb:UpdateItem"):
            try:
                old = self.table.update_item(
                    Key={"name": name},
                    UpdateExpression="REMOVE hyperpodWaiter",
                    ConditionExpression="attribute_exists(hyperpodWaiter)",
                    ReturnValues="UPDATED_OLD",
                )
            except ClientError as exc:
                if error_code(exc) == "ConditionalCheckFailedException":
                    return None
                raise
        return str(old["Attributes"]["hyperpodWaiter"])

    def forget(self, name: str) -> None:
        with aws_call("dynamodb:DeleteItem"):
            self.table.delete_item(Key={"name": name})
