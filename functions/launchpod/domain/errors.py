"""Launchpod's own errors. Adapters translate AWS and Kubernetes errors into these (chained with
``from``); the API maps them to HTTP in one table; workflows let exactly two of them cross into
Step Functions, whose Retry and Catch match error names exactly: ``RetryableError`` and
``PermanentError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class LaunchpodError(Exception):
    code = "INTERNAL"
    status = 500

    def __init__(self, message: str, *, details: Sequence[dict[str, Any]] = (), **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = list(details)
        self.extra = extra


class InvalidInput(LaunchpodError):
    """The request breaks a rule that needs AWS to check (a zone that does not exist, a VPC that is not there)."""

    code = "VALIDATION_FAILED"
    status = 422

    def __init__(self, message: str, *, field: str, rule: str) -> None:
        super().__init__(message, details=[{"field": field, "rule": rule, "message": message}])


class NotFound(LaunchpodError):
    code = "NOT_FOUND"
    status = 404


class Conflict(LaunchpodError):
    code = "CONFLICT"
    status = 409


class Unauthorized(LaunchpodError):
    code = "UNAUTHORIZED"
    status = 401


class Forbidden(LaunchpodError):
    code = "FORBIDDEN"
    status = 403


class RetryableError(LaunchpodError):
    """Worth trying again as is: throttling, a resource still settling, a network blip."""

    code = "RETRYABLE"
    status = 503


class PermanentError(LaunchpodError):
    """Trying again as is will fail again: the message says what the user must change."""

    code = "FAILED"
    status = 400
