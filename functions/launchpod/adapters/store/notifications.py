"""Notification subscribers (one versioned item per cluster) and the record of what was sent, in one
table: a notification is claimed with a conditional put on its key (operation id + kind, incident id +
kind), so a retried handler or a repeated event never tells anyone twice; a claim for an episode (an unhealthy
endpoint) is released when the episode ends."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call
from launchpod.adapters.store.dynamo import conditional, get_versioned, put_versioned
from launchpod.contracts.notifications import NotificationKind, SubscriberProtocol
from launchpod.domain.notifications import Subscriber

SENT_DAYS = 30  # how long a sent notification's key is kept (the table's TTL removes it after)


def subscriber_of(stored: Mapping[str, Any]) -> Subscriber:
    """A subscriber from its entry in the cluster's item (written by ``subscriber_entry`` alone, from a
    validated SubscriberRequest: its protocol and kinds are the contract's)."""
    since = stored.get("since")
    return Subscriber(
        id=str(stored["id"]),
        protocol=cast(SubscriberProtocol, stored["protocol"]),
        endpoint=str(stored["endpoint"]),
        kinds=tuple(cast(list[NotificationKind], stored["kinds"])),
        since=datetime.fromisoformat(str(since)) if since is not None else None,
        subscription_arn=stored.get("subscriptionArn"),
    )


def subscriber_entry(subscriber: Subscriber) -> dict[str, Any]:
    """A subscriber's entry in the cluster's item: JSON, ``since`` in ISO 8601; absent fields left out."""
    entry: dict[str, Any] = {
        "id": subscriber.id,
        "protocol": subscriber.protocol,
        "endpoint": subscriber.endpoint,
        "kinds": list(subscriber.kinds),
    }
    if subscriber.since is not None:
        entry["since"] = subscriber.since.isoformat()
    if subscriber.subscription_arn:
        entry["subscriptionArn"] = subscriber.subscription_arn
    return entry


class DynamoNotifications:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def subscribers(self, cluster: str) -> tuple[list[Subscriber], int]:
        """The cluster's subscribers and the item's version (0 when nothing is stored yet)."""
        found = get_versioned(self.table, {"pk": f"cluster#{cluster}"})
        return ([subscriber_of(s) for s in found[0]], found[1]) if found else ([], 0)

    def put_subscribers(self, cluster: str, subscribers: list[Subscriber], version: int) -> bool:
        """Store them if nobody wrote since ``version`` was read; False when someone did."""
        entries = [subscriber_entry(s) for s in subscribers]
        return put_versioned(self.table, {"pk": f"cluster#{cluster}"}, entries, version)

    def claim(self, key: str) -> bool:
        """True for the first caller with ``key``, False for every later one."""
        with aws_call("dynamodb:PutItem"):
            return conditional(
                lambda: self.table.put_item(
                    Item={"pk": f"sent#{key}", "expiresAt": int(time.time()) + SENT_DAYS * 86400},
                    ConditionExpression="attribute_not_exists(pk)",
                )
            )

    def release(self, key: str) -> None:
        """Forget ``key`` was claimed (an episode that ended), so its next claim is the first again."""
        with aws_call("dynamodb:DeleteItem"):
            self.table.delete_item(Key={"pk": f"sent#{key}"})
