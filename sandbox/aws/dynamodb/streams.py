"""A table's stream keeps its records, as DynamoDB Streams does, whoever else reads them.

"All data in DynamoDB Streams is subject to a 24-hour lifetime" (Amazon DynamoDB developer guide, "Change
data capture for DynamoDB Streams", Data retention): a Lambda event source mapping reading the stream takes
nothing away from it, and GetRecords from TRIM_HORIZON reads every record of the last 24 hours. moto
empties the shard each time a mapping has been sent its records, so a reader of a stream with a mapping
found nothing and a later record took an earlier one's sequence number.

Here each write sends the mapping its one new record (a mapping starts from its creation, as StartingPosition
LATEST does) and the shard keeps its records for 24 hours of simulated time (sandbox.aws.clock), dropping
older ones from the front with their sequence numbers.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sandbox.aws import clock
from sandbox.aws.core import once, patch

RETENTION_SECONDS = 24 * 3600


@once
def install() -> None:
    from moto.awslambda.utils import get_backend
    from moto.core.utils import utcnow
    from moto.dynamodb.models.table import StreamRecord, StreamShard

    def add(self: Any, old: Any, new: Any) -> None:
        horizon = utcnow() - timedelta(seconds=clock.real_seconds(RETENTION_SECONDS))
        expired = 0
        for record in self.items:
            if record.record["dynamodb"]["ApproximateCreationDateTime"] >= horizon:
                break
            expired += 1
        if expired:
            del self.items[:expired]
            self.starting_sequence_number += expired
        event_name = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
        view = self.table.stream_specification["StreamViewType"]
        sequence = len(self.items) + self.starting_sequence_number
        self.items.append(StreamRecord(self.table, view, event_name, old, new, sequence))
        for function_arn, mapping in self.table.lambda_event_source_mappings.items():
            region = function_arn.split(":")[3]
            get_backend(self.account_id, region).send_dynamodb_items(
                function_arn, [self.items[-1]], mapping.event_source_arn
            )

    add.__wrapped__ = StreamShard.add  # type: ignore[attr-defined]
    patch(StreamShard, "add", add)
