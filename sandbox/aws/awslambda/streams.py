"""DynamoDB stream records delivered to their Lambda after the write, in order, as Lambda's event source
mapping does."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import awslambda
from sandbox.aws.core import once, patch
from sandbox.aws.state import STATE

log = logging.getLogger("sandbox.aws.lambda")


@dataclass
class StreamState:
    """DynamoDB stream batches on their way to their function."""

    stream_backlog: list[int] = field(
        default_factory=lambda: [0]
    )  # batches of stream records written and not yet delivered


def _state() -> StreamState:
    return STATE.of(StreamState)


def stream_backlog() -> int:
    """How many batches of DynamoDB stream records still wait for (or are in) their Lambda invocation."""
    return _state().stream_backlog[0]


@once
def install_async_stream_delivery() -> None:
    """Deliver DynamoDB stream records to their Lambda after the write, in order, as Lambda's event
    source mapping does (it polls the stream's shards and invokes with batches, "How Lambda processes
    records from DynamoDB streams", Lambda developer guide). moto invokes inside the write, holding
    the table's lock: a function in an execution environment of its own that reads the table would
    wait for a write that waits for it. With handlers in this process the original order stands."""
    import queue

    from moto.awslambda.models import LambdaBackend

    original = LambdaBackend.send_dynamodb_items
    queues: dict[str, queue.SimpleQueue[tuple[Any, list[Any], str]]] = {}
    guard = threading.Lock()

    def deliver(pending: queue.SimpleQueue[tuple[Any, list[Any], str]], arn: str) -> None:
        while True:
            backend, items, source = pending.get()
            try:
                original(backend, arn, items, source)
            except Exception:
                log.warning("stream delivery to %s failed", arn, exc_info=True)
            finally:
                with guard:
                    _state().stream_backlog[0] -= 1

    def send_dynamodb_items(self: LambdaBackend, function_arn: str, items: list[Any], source: str) -> Any:
        if awslambda.runner() is None:
            return original(self, function_arn, items, source)
        with guard:
            _state().stream_backlog[0] += 1
            pending = queues.get(function_arn)
            if pending is None:
                pending = queues[function_arn] = queue.SimpleQueue()
                threading.Thread(
                    target=deliver, args=(pending, function_arn), name="stream-delivery", daemon=True
                ).start()
        pending.put((self, list(items), source))
        return "queued"  # moto clears the shard's pending records on a truthy answer

    patch(LambdaBackend, "send_dynamodb_items", send_dynamodb_items)
