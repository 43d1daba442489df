"""DynamoDB stream records delivered to their Lambda after the write, in order, as Lambda's event source
mapping does."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import awslambda, clock
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


@dataclass(frozen=True)
class _Batching:
    """When the event source mapping invokes: at ``size`` records, or ``window`` simulated seconds after the
    batch's first record, whichever comes first."""

    size: int
    window: float


def _batching(backend: Any, function_arn: str, source: str) -> _Batching:
    """The mapping's BatchSize and MaximumBatchingWindowInSeconds (defaults for DynamoDB streams: 100 and 0,
    "Lambda parameters for Amazon DynamoDB event source mappings", Lambda developer guide)."""
    for mapping in backend._event_source_mappings.values():
        if mapping.function_arn == function_arn and mapping.event_source_arn == source:
            return _Batching(int(mapping.batch_size or 100), float(mapping.max_batch_window or 0))
    return _Batching(100, 0.0)


@once
def install_async_stream_delivery() -> None:
    """Deliver DynamoDB stream records to their Lambda after the write, in order and in batches, as Lambda's
    event source mapping does: it polls the stream's shards and invokes with a batch of records once it holds
    BatchSize of them or MaximumBatchingWindowInSeconds has passed since the first ("How Lambda processes
    records from stream and queue-based event sources", Batching behavior, Lambda developer guide; "How
    Lambda processes records from DynamoDB streams"). The window is simulated time (sandbox.aws.clock).

    moto invokes inside the write, holding the table's lock, one invocation per write: a function in an
    execution environment of its own that reads the table would wait for a write that waits for it. With
    handlers in this process the original order stands."""
    import queue

    from moto.awslambda.models import LambdaBackend

    original = LambdaBackend.send_dynamodb_items
    Pending = queue.SimpleQueue[tuple[Any, list[Any], str]]
    queues: dict[tuple[str, str], Pending] = {}
    guard = threading.Lock()

    def deliver(pending: Pending, function_arn: str, source: str) -> None:
        carried: list[Any] = []  # records past the last batch's size, oldest first
        backend: Any = None
        while True:
            taken = 0
            if not carried:
                backend, items, _ = pending.get()
                carried, taken = list(items), 1
            batching = _batching(backend, function_arn, source)
            records = carried
            deadline = time.monotonic() + clock.real_seconds(batching.window)
            while len(records) < batching.size:
                left = deadline - time.monotonic()
                try:
                    more = pending.get(timeout=left) if left > 0 else pending.get_nowait()
                except queue.Empty:
                    break
                records.extend(more[1])
                taken += 1
            batch, carried = records[: batching.size], records[batching.size :]
            try:
                original(backend, function_arn, batch, source)
            except Exception:
                log.warning("stream delivery to %s failed", function_arn, exc_info=True)
            finally:
                with guard:
                    _state().stream_backlog[0] -= taken

    def send_dynamodb_items(self: LambdaBackend, function_arn: str, items: list[Any], source: str) -> Any:
        if awslambda.runner() is None:
            return original(self, function_arn, items, source)
        with guard:
            _state().stream_backlog[0] += 1
            pending = queues.get((function_arn, source))
            if pending is None:
                pending = queues[(function_arn, source)] = queue.SimpleQueue()
                threading.Thread(
                    target=deliver, args=(pending, function_arn, source), name="stream-delivery", daemon=True
                ).start()
        pending.put((self, list(items), source))
        return "queued"  # moto clears the shard's pending records on a truthy answer

    patch(LambdaBackend, "send_dynamodb_items", send_dynamodb_items)
