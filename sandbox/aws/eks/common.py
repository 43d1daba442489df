"""What the EKS emulation's parts share: the lock guarding its state, ids, the cluster CA, moto's exception
shapes, pagination and the role ARN check."""

from __future__ import annotations

import functools
import re
import string
import threading
import time
from datetime import UTC, datetime
from typing import Any

from moto.eks.exceptions import InvalidParameterException, ResourceInUseException, ResourceNotFoundException
from moto.moto_api._internal import mock_random

LOCK = threading.RLock()


def utcnow() -> datetime:
    return datetime.now(UTC)


def random_id(length: int, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    return "".join(mock_random.choice(alphabet) for _ in range(length))


def certificate_authority_data() -> str:
    """Base64 of the PEM CA that signed the cluster's API server certificate, as EKS returns it."""
    from sandbox.tls import certificate_authority_data as data

    return str(data())


def not_found(message: str, cluster: str | None = None, addon: str | None = None) -> ResourceNotFoundException:
    return ResourceNotFoundException(
        clusterName=cluster, nodegroupName=None, fargateProfileName=None, addonName=addon, message=message
    )


def in_use(message: str, cluster: str | None = None, addon: str | None = None) -> ResourceInUseException:
    return ResourceInUseException(clusterName=cluster, nodegroupName=None, addonName=addon, message=message)


def paginate(items: list[Any], max_results: Any, next_token: Any) -> tuple[list[Any], str | None]:
    start = int(next_token) if next_token not in (None, "") and str(next_token).isdigit() else 0
    size = int(max_results) if max_results not in (None, "") else 100
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


@functools.cache
def _partitions() -> frozenset[str]:
    import boto3

    return frozenset(boto3.Session().get_available_partitions())


_ROLE_ARN = re.compile(r"arn:(?P<partition>[^:]+):iam::[0-9]{12}:role/.+")


def validate_role_arn(arn: str | None) -> None:
    """moto's role ARN check, without building a boto3 Session (~1 s) on every call."""
    match = _ROLE_ARN.match(arn or "")
    if not match or match["partition"] not in _partitions():
        raise InvalidParameterException(message=f"Invalid Role Arn: '{arn}'")


def expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
