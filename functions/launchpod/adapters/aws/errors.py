"""Translate botocore errors into Launchpod's, keeping AWS's own words for the user."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from botocore.exceptions import BotoCoreError, ClientError, ConnectionError, ReadTimeoutError

from launchpod.domain.errors import Conflict, LaunchpodError, NotFound, PermanentError, RetryableError

T = TypeVar("T")

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
# A role handed to a service seconds after CreateRole: IAM has not propagated it yet (IAM is eventually
# consistent). EKS: "Role with arn: …, could not be assumed because it does not exist or the trusted
# entity is not correct"; SageMaker: "Could not assume role …".
_NOT_YET_ASSUMABLE = re.compile(
    r"(?:Role with arn: (?P<eks>\S+?), could not be assumed|Could not assume role (?P<sm>\S+?)\.? )"
)
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"}
# IAM's denial text: "User: arn:aws:sts::<account>:assumed-role/<role>/<session> is not authorized to
# perform: <action> on resource: <arn> because ..." (a Lambda's session name is its function name).
_DENIAL = re.compile(
    r"User: arn:[^:]+:sts::\d+:assumed-role/[^/]+/(?P<who>\S+) is not authorized to perform: "
    r"(?P<action>\S+) on resource: \"?(?P<resource>[^\s\"]+)\"?"
)


def _denied(action: str, code: str, message: str) -> str:
    """A denial in words a user can act on: who may not do what, and where to grant it."""
    found = _DENIAL.search(message)
    if not found:
        return f"{action} failed: {code}: {message}"
    return (
        f"{found['who']} may not {found['action']} on {found['resource']}; grant it in the function's "
        f"policy (the registry's actions for it). AWS said: {message}"
    )


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def or_none(call: Callable[[], T], *codes: str) -> T | None:
    """The call's answer; None when AWS answers one of ``codes`` (the thing asked for is not there)."""
    try:
        return call()
    except ClientError as exc:
        if error_code(exc) in codes:
            return None
        raise


@contextmanager
def ignoring(*codes: str) -> Iterator[None]:
    """AWS answering one of ``codes`` is no error: what the block deletes or stops is gone already (a retried
    phase, or another caller was first)."""
    try:
        yield
    except ClientError as exc:
        if error_code(exc) not in codes:
            raise


def translate(exc: Exception, action: str) -> LaunchpodError:
    if isinstance(exc, ClientError):
        code = error_code(exc)
        message = exc.response.get("Error", {}).get("Message") or code
        text = f"{action} failed: {code}: {message}"
        if code in THROTTLING or code in SETTLING:
            return RetryableError(text, aws_code=code)
        young = (
            _NOT_YET_ASSUMABLE.search(message) if code in ("InvalidParameterException", "ValidationException") else None
        )
        if young:
            role = young["eks"] or young["sm"]
            return RetryableError(
                f"{action}: the IAM role {role} cannot be assumed yet; a new role takes seconds to propagate "
                f"through IAM, so this is retried (AWS said: {message})",
                aws_code=code,
            )
        if code in NOT_FOUND or code.endswith(".NotFound"):
            return NotFound(text, aws_code=code)
        if code in IN_USE:
            return Conflict(text, aws_code=code)
        if code in ACCESS_DENIED:
            return PermanentError(_denied(action, code, message), aws_code=code)
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
