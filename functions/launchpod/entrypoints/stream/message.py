"""$default: subscribe and unsubscribe. A new operation subscriber gets the current state at once,
so nothing that happened before it subscribed is missed."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from launchpod.adapters.aws import websocket
from launchpod.contracts.streaming import StreamEvent, StreamEventType, SubscribeMessage
from launchpod.domain.errors import NotFound
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream._context import connection_id, management_endpoint
from launchpod.entrypoints.stream.log_pump_start import start_log_pump
from launchpod.runtime import wiring

_TOPIC = re.compile(r"^(operation:op-[0-9a-z]{8,40}|cluster:[a-zA-Z0-9-]{1,63}|logs:[\w.-]+/[\w.-]+/[\w.-]+)$")


def _reply(kind: StreamEventType, data: dict[str, Any], status: int = 200) -> dict[str, Any]:
    return {"statusCode": status, "body": StreamEvent(topic="", type=kind, data=data).model_dump_json()}


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    conn = connection_id(event)
    try:
        message = SubscribeMessage.model_validate(json.loads(event.get("body") or "{}"))
    except (ValueError, ValidationError) as exc:
        return _reply(
            "error",
            {
                "message": 'Send {"action": "subscribe", "topics": ["operation:<id>"]}.',
                "detail": str(exc)[:500],
            },
            400,
        )
    bad = [t for t in message.topics if not _TOPIC.match(t)]
    if bad:
        return _reply(
            "error",
            {
                "message": f"Unknown topics {bad}; use operation:<id>, cluster:<name> or "
                "logs:<cluster>/<namespace>/<pod>."
            },
            400,
        )
    store = wiring.connections()
    if message.action == "unsubscribe":
        return _reply("subscribed", {"topics": store.unsubscribe(conn, message.topics)})
    topics = store.subscribe(conn, message.topics)
    for topic in message.topics:
        if topic.startswith("operation:"):
            try:
                view = wiring.operations().get(topic.removeprefix("operation:"))
            except NotFound:
                continue
            snapshot = StreamEvent(topic=topic, type="operation", data=view.model_dump(mode="json"))
            websocket.post(management_endpoint(event), conn, snapshot.model_dump(mode="json"))
        elif topic.startswith("logs:"):
            start_log_pump(topic)
    return _reply("subscribed", {"topics": topics})
