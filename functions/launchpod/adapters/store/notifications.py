"""Notification subscribers (one versioned item per cluster) and the record of what was sent, in one
table: a notification is claimed with a conditional put on its key (operation id + kind, incident id +
kind), so a retried handler or a repeated event never tells anyone twice; a claim for an episode (an unhealthy
endpoint) is released when the episode ends."""

from __future__ import annotations

import time
from typing import Any

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call
from launchpod.adapters.store.dynamo import conditional, get_versioned, put_versioned

SENT_DAYS = 30  # how long a sent notification's key is kept (the table's TTL removes it after)


class DynamoNotifications:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def subscribers(self, cluster: str) -> tuple[list[dict[str, Any]], int]:
        """The cluster's subscribers and the item's version (0 when nothing is stored yet)."""
        found = get_versioned(self.table, {"pk": f"cluster#{cluster}"})
        return (list(found[0]), found[1]) if found else ([], 0)

    def put_subscribers(self, cluster: str, subscribers: list[dict[str, Any]], version: int) -> bool:
        """Store them if nobody wrote since ``version`` was read; False when someone did."""
        return put_versioned(self.table, {"pk": f"cluster#{cluster}"}, subscribers, version)

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
