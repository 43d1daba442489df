"""$connect: records the connection and where to push to it."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id, management_endpoint, subject
from launchpod.usecases import streaming


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    connected = streaming.connect(
        connection_id(event), management_endpoint(event), subject(event), ports=streaming.real()
    )
    return {"statusCode": 200} if connected else {"statusCode": 401, "body": "Unauthorized"}
