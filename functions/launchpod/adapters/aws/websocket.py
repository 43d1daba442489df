"""API Gateway's management API: pushing messages to WebSocket connections."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import boto3
from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import _CONFIG
from launchpod.adapters.aws.errors import error_code, translate
from launchpod.runtime.settings import settings


@lru_cache(maxsize=16)
def _client(endpoint: str) -> Any:
    return boto3.client("apigatewaymanagementapi", endpoint_url=endpoint, region_name=settings().region, config=_CONFIG)


def post(endpoint: str, connection_id: str, message: dict[str, Any]) -> bool:
    """Send one message; False when the connection is gone (the caller forgets it)."""
    try:
        _client(endpoint).post_to_connection(ConnectionId=connection_id, Data=json.dumps(message, default=str).encode())
    except ClientError as exc:
        if error_code(exc) in ("GoneException", "410"):
            return False
        raise translate(exc, "execute-api:PostToConnection") from exc
    return True
