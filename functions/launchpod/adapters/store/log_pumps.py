"""One live log pump per topic: a lease item ``pump#<topic>`` / ``lease`` in the connections table.

Taken with a conditional put (absent, or its lease run out: a pump that died is replaced), renewed by its
holder at each hand-over, released by its holder only. DynamoDB's TTL deletes expired items late (up to a
few days), so the condition reads ``leaseUntil``, and ``expiresAt`` only keeps the table clean.
"""

from __future__ import annotations

import time

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.aws.errors import aws_call
from launchpod.adapters.store.dynamo import conditional

_DAY = 86400
# Outlives one invocation of the pump (its timeout is 300 s in the registry), so only a pump that died
# loses its lease; the holder renews it at each hand-over.
LEASE_SECONDS = 360


def _key(topic: str) -> dict[str, str]:
    return {"pk": f"pump#{topic}", "sk": "lease"}


class DynamoLogPumps:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def acquire(self, topic: str, holder: str, seconds: int = LEASE_SECONDS) -> bool:
        """True when ``holder`` now holds the topic's pump lease."""
        now = int(time.time())
        with aws_call("dynamodb:PutItem"):
            return conditional(
                lambda: self.table.put_item(
                    Item={**_key(topic), "holder": holder, "leaseUntil": now + seconds, "expiresAt": now + _DAY},
                    ConditionExpression="attribute_not_exists(pk) OR leaseUntil < :now OR holder = :h",
                    ExpressionAttributeValues={":now": now, ":h": holder},
                )
            )

    def renew(self, topic: str, holder: str, seconds: int = LEASE_SECONDS) -> bool:
        """False when the lease was lost (run out and taken by another pump)."""
        with aws_call("dynamodb:UpdateItem"):
            return conditional(
                lambda: self.table.update_item(
                    Key=_key(topic),
                    UpdateExpression="SET leaseUntil = :u",
                    ConditionExpression="holder = :h",
                    ExpressionAttributeValues={":u": int(time.time()) + seconds, ":h": holder},
                )
            )

    def release(self, topic: str, holder: str) -> None:
        with aws_call("dynamodb:DeleteItem"):
            conditional(
                lambda: self.table.delete_item(
                    Key=_key(topic), ConditionExpression="holder = :h", ExpressionAttributeValues={":h": holder}
                )
            )
