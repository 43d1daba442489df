"""Lambda's asynchronous invocation in memory: the AsyncInvoke port (adapters.aws.lambda_invoke.invoke_async)."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import NotFound, RetryableError


class Invokes:
    """InvocationType=Event: the event is queued for a function that exists (``functions``; None: any name) and
    recorded in ``calls``; a function that does not exist is NotFound, as Lambda answers
    ResourceNotFoundException; ``failing`` answers as a throttled Lambda does (RetryableError)."""

    def __init__(self, functions: set[str] | None = None, failing: bool = False) -> None:
        self.functions, self.failing = functions, failing
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, function_name: str, event: dict[str, Any]) -> None:
        if self.failing:
            raise RetryableError("Lambda is throttling InvokeFunction.")
        if self.functions is not None and function_name not in self.functions:
            raise NotFound(
                "lambda:InvokeFunction failed: ResourceNotFoundException: Function not found: "
                f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
            )
        self.calls.append((function_name, event))
