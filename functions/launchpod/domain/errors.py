"""Launchpod's own errors. Adapters translate AWS and Kubernetes errors into these (chained with
``from``); the API maps their codes to HTTP in one table (entrypoints/api/errors.py); workflows let
exactly two of them cross into Step Functions, whose Retry and Catch match error names exactly:
``RetryableError`` and ``PermanentError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from launchpod.contracts.errors import ErrorCode


class LaunchpodError(Exception):
    code = ErrorCode.INTERNAL

    def __init__(self, message: str, *, details: Sequence[dict[str, Any]] = (), **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = list(details)
        self.extra = extra


def next_step(call: str) -> dict[str, Any]:
    """An error's detail naming the call that fixes it, ``METHOD /api/... [JSON body]``, for a client that acts on it
    (the CLI, an agent, a script). The message says the same in words a person acts on; the console shows where in
    it to do that instead of the call (web/src/lib/nextSteps.ts)."""
    return {"field": None, "rule": "next_step", "message": call}


class InvalidInput(LaunchpodError):
    """The request breaks a rule that needs AWS to check (a zone that does not exist, a VPC that is not there)."""

    code = ErrorCode.VALIDATION_FAILED

    def __init__(self, message: str, *, field: str, rule: str) -> None:
        super().__init__(message, details=[{"field": field, "rule": rule, "message": message}])


class NotFound(LaunchpodError):
    code = ErrorCode.NOT_FOUND


class Conflict(LaunchpodError):
    code = ErrorCode.CONFLICT


class Unauthorized(LaunchpodError):
    code = ErrorCode.UNAUTHORIZED


class Forbidden(LaunchpodError):
    code = ErrorCode.FORBIDDEN


class RetryableError(LaunchpodError):
    """Worth trying again as is: throttling, a resource still settling, a network blip."""

    code = ErrorCode.RETRYABLE


class PermanentError(LaunchpodError):
    """Trying again as is will fail again: the message says what the user must change."""

    code = ErrorCode.FAILED
