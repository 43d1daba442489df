"""$disconnect: forgets the connection and its subscriptions."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id
from launchpod.runtime import wiring


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    wiring.connections().disconnect(connection_id(event))
    return {"statusCode": 200}
