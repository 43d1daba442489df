"""boto3 clients, built once per container and Region with an explicit botocore Config.

A cluster lives in one Region (its registry record's ``region``); everything Launchpod does to it goes to
that Region's endpoints. The entrypoint that knows the cluster sets the Region once (``in_region``) and
every client of a regional service built here follows it, so no adapter or use case passes a Region by hand.
The deployment's own resources (its tables, state machines, topic, functions, bucket, WebSocket API) stay in
the deployment's Region whatever the cluster's. The Region is a context variable: a thread pool that should
keep it runs its work in the caller's context (``launchpod.domain.concurrency``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

import boto3
from botocore.config import Config

from launchpod.adapters.aws.propagation import retry_fresh_ids
from launchpod.runtime.settings import settings

_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    user_agent_extra="launchpod/0.1.0",
)

# The services whose resources belong to a cluster, so live in the cluster's Region: its EKS control plane and
# HyperPod cluster, their network, file systems, quotas, logs and metrics workspace, and STS for the EKS token
# (a token presigned for the cluster's Region's STS endpoint, as `aws eks get-token --region` makes it).
REGIONAL = frozenset({"eks", "sagemaker", "ec2", "fsx", "service-quotas", "logs", "amp", "sts", "cloudwatch"})


class _Lazy:
    """A Region looked up on first use (a cluster's record is read only if its work calls AWS)."""

    def __init__(self, find: Callable[[], str]) -> None:
        self._find, self._found = find, ""

    def __call__(self) -> str:
        if not self._found:
            self._found = self._find()
        return self._found


_REGION: ContextVar[_Lazy | None] = ContextVar("launchpod_region", default=None)


def region() -> str:
    """The Region the current work's cluster lives in: the one ``in_region`` set, else the deployment's."""
    found = _REGION.get()
    return (found() if found else "") or settings().region


@contextmanager
def in_region(name: str | Callable[[], str] | None) -> Iterator[None]:
    """Within the block, regional clients call ``name``'s endpoints: a Region, a function that finds it (called
    once, when a regional client is first used), or None for the deployment's Region."""
    token = _REGION.set(None if name is None else _Lazy(name if callable(name) else lambda: name))
    try:
        yield
    finally:
        _REGION.reset(token)


@cache
def _client(service: str, where: str) -> Any:
    made = boto3.client(service, region_name=where, endpoint_url=settings().aws_endpoint_url, config=_CONFIG)
    if service == "ec2":
        retry_fresh_ids(made)  # a resource just created can be NotFound for a moment (propagation.py)
    return made


class _RegionalClient:
    """A client of a regional service that resolves, call by call, to the current Region's client."""

    def __init__(self, service: str) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(_client(self._service, region()), name)


@cache
def client(service: str) -> Any:
    if service in REGIONAL:
        return _RegionalClient(service)
    return _client(service, settings().region)


@cache
def resource(service: str) -> Any:
    s = settings()
    return boto3.resource(service, region_name=s.region, endpoint_url=s.aws_endpoint_url, config=_CONFIG)
