"""boto3 clients, built once per container with an explicit botocore Config."""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from botocore.config import Config

from launchpod.runtime.settings import settings

_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    user_agent_extra="launchpod/0.1.0",
)


@cache
def client(service: str) -> Any:
    s = settings()
    return boto3.client(service, region_name=s.region, endpoint_url=s.aws_endpoint_url, config=_CONFIG)


@cache
def resource(service: str) -> Any:
    s = settings()
    return boto3.resource(service, region_name=s.region, endpoint_url=s.aws_endpoint_url, config=_CONFIG)
