"""A DynamoDB stream reaches its function as Lambda's event source mapping delivers it: in order, each record
once, in batches of at most BatchSize gathered over MaximumBatchingWindowInSeconds ("How Lambda processes
records from stream and queue-based event sources", Batching behavior, Lambda developer guide)."""

from __future__ import annotations

import json
import threading
from typing import Any

from sandbox.aws import awslambda
from tests.sandbox.aws.support import id_table, wait_until


def _streamed_table(client: Any, deploy: Any, batch_size: int, window: int) -> None:
    ddb = client("dynamodb")
    id_table(ddb, "changes")
    stream = ddb.update_table(
        TableName="changes", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    )["TableDescription"]["LatestStreamArn"]
    client("lambda").create_event_source_mapping(
        EventSourceArn=stream,
        FunctionName=deploy("sink", "echo"),  # the runner below answers in its place
        StartingPosition="LATEST",
        BatchSize=batch_size,
        MaximumBatchingWindowInSeconds=window,
    )


def _delivered(batches: list[list[str]], count: int, timeout: float = 20.0) -> list[list[str]]:
    wait_until(
        lambda: sum(len(b) for b in batches) >= count,
        timeout=timeout,
        reason=lambda: f"{count} records delivered; the function was sent {batches}",
    )
    return batches


def test_writes_within_the_window_arrive_in_batches_of_at_most_the_batch_size_in_order(client, deploy, time_scale):
    time_scale(3.0)  # the one-second window lasts three real seconds: the seven writes all land inside it
    batches: list[list[str]] = []
    lock = threading.Lock()

    def runner(config: Any, event: Any, fault: str | None) -> tuple[str, bool]:
        with lock:
            batches.append([r["dynamodb"]["Keys"]["id"]["S"] for r in event["Records"]])
        return json.dumps({"batchItemFailures": []}), False

    _streamed_table(client, deploy, batch_size=3, window=1)
    awslambda.set_runner(runner)
    try:
        for i in range(7):
            client("dynamodb").put_item(TableName="changes", Item={"id": {"S": f"k{i}"}})
        got = _delivered(batches, 7)
    finally:
        awslambda.set_runner(None)

    assert got == [["k0", "k1", "k2"], ["k3", "k4", "k5"], ["k6"]]


def test_without_a_window_a_record_is_delivered_as_soon_as_it_is_written(client, deploy):
    batches: list[list[str]] = []

    def runner(config: Any, event: Any, fault: str | None) -> tuple[str, bool]:
        batches.append([r["dynamodb"]["Keys"]["id"]["S"] for r in event["Records"]])
        return "{}", False

    _streamed_table(client, deploy, batch_size=100, window=0)
    awslambda.set_runner(runner)
    try:
        client("dynamodb").put_item(TableName="changes", Item={"id": {"S": "alone"}})
        got = _delivered(batches, 1, timeout=5.0)
    finally:
        awslambda.set_runner(None)

    assert got == [["alone"]]
