"""$default: subscribe and unsubscribe (usecases.streaming.on_message)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from launchpod.contracts.streaming import StreamEvent, StreamEventType, SubscribeMessage
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id, management_endpoint
from launchpod.usecases import streaming


def _reply(kind: StreamEventType, data: dict[str, Any], status: int = 200) -> dict[str, Any]:
    return {"statusCode": status, "body": StreamEvent(topic="", type=kind, data=data).model_dump_json()}


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        message = SubscribeMessage.model_validate(json.loads(event.get("body") or "{}"))
    except (ValueError, ValidationError) as exc:
        hint = 'Send {"action": "subscribe", "topics": ["operation:<id>"]}.'
        return _reply("error", {"message": hint, "detail": str(exc)[:500]}, 400)
    reply = streaming.on_message(connection_id(event), management_endpoint(event), message, ports=streaming.real())
    return _reply(reply.kind, reply.data, reply.status)
