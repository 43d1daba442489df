"""$disconnect: forgets the connection and its subscriptions."""

from __future__ import annotations

from typing import Any

from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id
from launchpod.usecases import streaming


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    streaming.disconnect(connection_id(event), ports=streaming.real())
    return {"statusCode": 200}
