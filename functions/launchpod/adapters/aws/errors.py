"""Translate botocore errors into Launchpod's, keeping AWS's own words for the user."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError, ConnectionError, ReadTimeoutError

from launchpod.domain.errors import Conflict, LaunchpodError, NotFound, PermanentError, RetryableError

THROTTLING = {
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestLimitExceeded",
    "TooManyRequestsException",
    "RequestThrottled",
    "SlowDown",
    "ProvisionedThroughputExceededException",
    "ServiceUnavailable",
    "ServiceUnavailableException",
    "InternalFailure",
    "InternalError",
    "ServerException",
}
# A resource still being released (a NAT gateway holding its address, an ENI leaving a subnet): wait.
SETTLING = {"DependencyViolation", "InvalidIPAddress.InUse", "ResourceInUse.Settling"}
NOT_FOUND = {"ResourceNotFoundException", "NoSuchEntity", "NoSuchBucket", "NotFoundException"}
IN_USE = {"ResourceInUseException", "EntityAlreadyExists", "ResourceAlreadyExistsException"}


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def translate(exc: Exception, action: str) -> LaunchpodError:
    if isinstance(exc, ClientError):
        code = error_code(exc)
        message = exc.response.get("Error", {}).get("Message") or code
        text = f"{action} failed: {code}: {message}"
        if code in THROTTLING or code in SETTLING:
            return RetryableError(text, aws_code=code)
        if code in NOT_FOUND or code.endswith(".NotFound"):
            return NotFound(text, aws_code=code)
        if code in IN_USE:
            return Conflict(text, aws_code=code)
        return PermanentError(text, aws_code=code)
    if isinstance(exc, ConnectionError | ReadTimeoutError | BotoCoreError):
        return RetryableError(f"{action} failed: could not reach AWS ({exc}).")
    return PermanentError(f"{action} failed: {exc}")


@contextmanager
def aws_call(action: str) -> Iterator[None]:
    """Run boto3 calls, re-raising their errors as Launchpod errors that name the action."""
    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        raise translate(exc, action) from exc
