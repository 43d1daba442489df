"""WebSocket messages: what a client sends to subscribe, and what it receives."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from launchpod.contracts.common import Contract

Topic = str  # operation:<id> | cluster:<name> | logs:<cluster>/<namespace>/<pod>


class SubscribeMessage(Contract):
    action: Literal["subscribe", "unsubscribe"]
    topics: list[str] = Field(min_length=1, max_length=20, examples=[["operation:op-01jd3k2m4n5p6q7r"]])


StreamEventType = Literal[
    "operation", "cluster", "node-health", "cluster-event", "incident", "log", "subscribed", "error"
]


class StreamEvent(Contract):
    topic: str
    type: StreamEventType
    data: dict[str, Any]
