"""The cluster registry: clusters Launchpod created or imported, and which operation holds each."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, Unpack

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.adapters.store.dynamo import (
    conditional,
    decode_cursor,
    encode_cursor,
    plain,
    query_page,
)
from launchpod.domain import mlflow, ownership
from launchpod.domain.clusters.cluster_record import ClusterRecord, RegisteredFacts, Source
from launchpod.domain.operations import now

# Registered clusters carry this attribute, so the by-name index (a sparse index) lists them and not
# the lock-only rows the operations store writes for a name nobody registered yet.
REGISTRY_ATTRIBUTE, REGISTRY = "registry", "clusters"
CREATED_FACTS = (ownership.CREATED_EKS, ownership.CREATED_HYPERPOD)


def cluster_record(item: Mapping[str, Any]) -> ClusterRecord:
    """A registered cluster's item (its numbers plain) as Launchpod reads it: register always writes its source,
    Region and first registration time; the operations store adds lockedBy while an operation holds it."""
    server = item.get(mlflow.RECORD_ATTRIBUTE)
    return ClusterRecord(
        name=str(item["name"]),
        source=item["source"],
        region=str(item["region"]),
        registered_at=datetime.fromisoformat(str(item["registeredAt"])),
        locked_by=str(item["lockedBy"]) if item.get("lockedBy") else None,
        mlflow_tracking_server=str(server) if server else None,
        created={fact: str(item[fact]) for fact in CREATED_FACTS if item.get(fact)},
        requested=frozenset(fact for fact in CREATED_FACTS if item.get(ownership.requested(fact))),
    )


def registration(source: Source, region: str, **facts: Unpack[RegisteredFacts]) -> dict[str, Any]:
    """The attributes a registration sets: its source and Region, the by-name index's marker and each fact given
    (one left None stays as the item has it)."""
    attributes = {
        "eksArn": facts.get("eks_arn"),
        mlflow.RECORD_ATTRIBUTE: facts.get("mlflow_tracking_server"),
        "hyperpodStatus": facts.get("hyperpod_status"),
        "hyperpodStatusAt": facts.get("hyperpod_status_at"),
        "drift": facts.get("drift"),
    }
    given = {k: v for k, v in attributes.items() if v is not None}
    return {"source": source, "region": region, REGISTRY_ATTRIBUTE: REGISTRY, **given}


class DynamoClusters:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, name: str) -> ClusterRecord | None:
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"name": name}, ConsistentRead=True).get("Item")
        return cluster_record(plain(item)) if item and item.get("registeredAt") else None

    def page(self, *, limit: int, cursor: str | None = None) -> tuple[list[ClusterRecord], str | None]:
        """Registered clusters by name, by Query on the by-name index (lock-only rows are not in it)."""
        query = {"IndexName": "by-name", "KeyConditionExpression": Key(REGISTRY_ATTRIBUTE).eq(REGISTRY)}
        with aws_call("dynamodb:Query"):
            items, last = query_page(
                self.table, query, ("name", REGISTRY_ATTRIBUTE), limit, decode_cursor(cursor, ["clusters"])
            )
        return [cluster_record(plain(i)) for i in items], encode_cursor(last, ["clusters"]) if last else None

    def list(self) -> Iterator[ClusterRecord]:
        """Every registered cluster, a page at a time."""
        cursor: str | None = None
        while True:
            items, cursor = self.page(limit=100, cursor=cursor)
            yield from items
            if cursor is None:
                return

    def register(self, name: str, *, source: Source, region: str, **facts: Unpack[RegisteredFacts]) -> None:
        """Record a cluster (idempotent), with the facts given (``registration``); keeps the first registration
        time."""
        sets = registration(source, region, **facts)
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

    def record_requested(self, name: str, fact: str) -> bool:
        """Mark that a create phase is about to ask AWS for the cluster ``fact`` names (launchpod.domain.ownership:
        CREATED_EKS or CREATED_HYPERPOD); False when the name has no item."""
        return self._annotate(name, ownership.requested(fact), True)

    def record_created(self, name: str, fact: str, arn: str) -> bool:
        """Record ``arn`` as the cluster a create phase made (what delete-cluster trusts beyond the tags);
        False when the name has no item."""
        return self._annotate(name, fact, arn)

    def _annotate(self, name: str, attribute: str, value: object) -> bool:
        """Set one attribute of an existing item: only the create phases write these (launchpod.domain.ownership)."""
        with aws_call("dynamodb:UpdateItem"):
            return conditional(
                lambda: self.table.update_item(
                    Key={"name": name},
                    UpdateExpression="SET #k = :v",
                    ConditionExpression="attribute_exists(#n)",
                    ExpressionAttributeNames={"#n": "name", "#k": attribute},
                    ExpressionAttributeValues={":v": value},
                )
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
