"""$connect: records the connection and where to push to it."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id, management_endpoint, subject
from launchpod.runtime import wiring


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    who = subject(event)
    if not who:
        return {"statusCode": 401, "body": "Unauthorized"}
    wiring.connections().connect(connection_id(event), management_endpoint(event), who)
    return {"statusCode": 200}
