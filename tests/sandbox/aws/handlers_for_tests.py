"""Tiny Lambda handlers the sandbox.aws tests deploy with Handler="tests.sandbox.aws.handlers_for_tests.<fn>".

They raise the two error classes Launchpod's workflows use across ASL (matched by class name) and
record how often they ran, so tests can check Retry and Catch paths through the real interpreter.
"""

from __future__ import annotations

import collections
import os
from typing import Any

CALLS: collections.Counter[str] = collections.Counter()


class RetryableError(Exception):
    """Same name as Launchpod's temporary error: Step Functions retries it."""


class PermanentError(Exception):
    """Same name as Launchpod's permanent error: Step Functions catches it."""


def echo(event: dict[str, Any], context: Any) -> dict[str, Any]:
    CALLS["echo"] += 1
    return {
        "event": event,
        "functionName": context.function_name,
        "memory": context.memory_limit_in_mb,
        "arn": context.invoked_function_arn,
        "requestId": context.aws_request_id,
        "remainingPositive": context.get_remaining_time_in_millis() > 0,
        "env": os.environ.get("SANDBOX_AWS_TEST_SETTING"),
    }


def flaky(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Fail with RetryableError until called event["failures"] + 1 times for event["key"]."""
    key = f"flaky:{event['key']}"
    CALLS[key] += 1
    if CALLS[key] <= event["failures"]:
        raise RetryableError(f"attempt {CALLS[key]} hit a transient error")
    return {"attempts": CALLS[key]}


def broken(event: dict[str, Any], context: Any) -> dict[str, Any]:
    CALLS["broken"] += 1
    raise PermanentError(f"cluster name {event.get('name')!r} is invalid")


RECEIVED: list[dict[str, Any]] = []


def record(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Keep every event it is invoked with (EventBridge targets, task-token tasks)."""
    RECEIVED.append(event)
    return {"recorded": len(RECEIVED)}


def sized(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Return a document whose JSON is exactly event["bytes"] bytes long (UTF-8)."""
    frame = len(b'{"blob":""}')
    return {"blob": "x" * (event["bytes"] - frame)}
