"""The WebSocket side: connections come and go, subscribe to topics (``operation:<id>``, ``cluster:<name>``,
``logs:<cluster>/<namespace>/<pod>``), and every message published on a topic is posted to each of its
subscribers through API Gateway's management API; a connection that is gone is forgotten. A new operation
subscriber gets the operation's current state at once, so nothing that happened before it subscribed is
missed; a new log subscriber starts the topic's live log pump unless one runs (usecases.log_pump)."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.contracts.operations import OperationView
from launchpod.contracts.streaming import StreamEvent, StreamEventType, SubscribeMessage
from launchpod.domain.errors import LaunchpodError, NotFound
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.runtime.wiring import AsyncInvoke, WebSocketPush

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)

PUMP = "log-pump"  # the registry's name for launchpod.entrypoints.stream.log_pump
_TOPIC = re.compile(r"^(operation:op-[0-9a-z]{8,40}|cluster:[a-zA-Z0-9-]{1,63}|logs:[\w.-]+/[\w.-]+/[\w.-]+)$")


class Connections(Protocol):
    """The WebSocket connections and their topics (adapters.store.connections)."""

    def connect(self, connection_id: str, endpoint: str, subject: str) -> None: ...
    def disconnect(self, connection_id: str) -> None: ...
    def subscribe(self, connection_id: str, topics: list[str]) -> list[str]: ...
    def unsubscribe(self, connection_id: str, topics: list[str]) -> list[str]: ...
    def subscribers(self, topic: str) -> list[tuple[str, str]]: ...


class OperationReader(Protocol):
    """One operation by id (adapters.store.operations): NotFound when there is none."""

    def get(self, operation_id: str) -> OperationView: ...


class PumpLeases(Protocol):
    """One live log pump per topic, held by a lease (adapters.store.log_pumps)."""

    def acquire(self, topic: str, holder: str) -> bool: ...
    def renew(self, topic: str, holder: str) -> bool: ...
    def release(self, topic: str, holder: str) -> None: ...


@dataclass(frozen=True)
class StreamPorts:
    connections: Connections
    push: WebSocketPush
    operations: OperationReader
    pumps: PumpLeases
    invoke: AsyncInvoke
    pump_function: str  # the deployed name of the log pump Lambda
    operation_of_image: Callable[[dict[str, Any]], OperationView]


def real() -> StreamPorts:
    """The deployed adapters (runtime.wiring)."""
    return StreamPorts(
        connections=wiring.connections(),
        push=wiring.websocket(),
        operations=wiring.operations(),
        pumps=wiring.log_pumps(),
        invoke=wiring.invoke_async(),
        pump_function=f"{settings().resource_prefix}-{PUMP}",
        operation_of_image=wiring.operation_image(),
    )


def publish(topic: str, kind: StreamEventType, data: dict[str, Any], *, ports: StreamPorts) -> tuple[int, int]:
    """Post to every subscriber of ``topic``; returns (pushed, gone)."""
    message = StreamEvent(topic=topic, type=kind, data=data).model_dump(mode="json")
    pushed = gone = 0
    for conn, endpoint in ports.connections.subscribers(topic):
        if ports.push.post(endpoint, conn, message):
            pushed += 1
        else:
            gone += 1
            ports.connections.disconnect(conn)
    return pushed, gone


def connect(connection_id: str, endpoint: str, subject: str | None, *, ports: StreamPorts) -> bool:
    """Record the connection and where to push to it; False (refused) without a caller."""
    if not subject:
        return False
    ports.connections.connect(connection_id, endpoint, subject)
    return True


def disconnect(connection_id: str, *, ports: StreamPorts) -> None:
    """Forget the connection and its subscriptions."""
    ports.connections.disconnect(connection_id)


def start_log_pump(topic: str, *, ports: StreamPorts) -> bool:
    """Start the topic's live log pump unless one runs: the lease decides, so two subscribers arriving
    together start one pump. True when this call started it (False: one runs, or starting it failed)."""
    holder = uuid.uuid4().hex
    if not ports.pumps.acquire(topic, holder):
        return False
    try:
        ports.invoke(ports.pump_function, {"topic": topic, "holder": holder})
    except LaunchpodError as exc:
        ports.pumps.release(topic, holder)
        log.warning("could not start the log pump", extra={"topic": topic, "error": exc.message})
        return False
    return True


@dataclass(frozen=True)
class Reply:
    """What the $default route answers the connection."""

    kind: StreamEventType
    data: dict[str, Any]
    status: int = 200


def on_message(connection_id: str, endpoint: str, message: SubscribeMessage, *, ports: StreamPorts) -> Reply:
    """Subscribe or unsubscribe the connection; a new operation subscriber gets the operation at once."""
    bad = [t for t in message.topics if not _TOPIC.match(t)]
    if bad:
        hint = f"Unknown topics {bad}; use operation:<id>, cluster:<name> or logs:<cluster>/<namespace>/<pod>."
        return Reply("error", {"message": hint}, 400)
    if message.action == "unsubscribe":
        return Reply("subscribed", {"topics": ports.connections.unsubscribe(connection_id, message.topics)})
    topics = ports.connections.subscribe(connection_id, message.topics)
    for topic in message.topics:
        if topic.startswith("operation:"):
            try:
                view = ports.operations.get(topic.removeprefix("operation:"))
            except NotFound:
                continue
            snapshot = StreamEvent(topic=topic, type="operation", data=view.model_dump(mode="json"))
            ports.push.post(endpoint, connection_id, snapshot.model_dump(mode="json"))
        elif topic.startswith("logs:"):
            start_log_pump(topic, ports=ports)
    return Reply("subscribed", {"topics": topics})


def operations_changed(images: list[dict[str, Any]], *, ports: StreamPorts) -> tuple[int, int]:
    """Each changed operation (as the table's stream carries it) to the subscribers of ``operation:<id>`` and
    ``cluster:<name>``; returns (pushed, gone). A batch can carry several changes of one operation (the event
    source mapping gathers a second of writes): each push is the whole operation, so only its newest image
    is sent, once."""
    newest = {str(image.get("id")): image for image in images}  # stream order: the last one is the newest
    pushed = gone = 0
    for image in newest.values():
        view = ports.operation_of_image(image)
        data = view.model_dump(mode="json")
        for topic in (f"operation:{view.id}", f"cluster:{view.target}"):
            sent, lost = publish(topic, "operation", data, ports=ports)
            pushed, gone = pushed + sent, gone + lost
    return pushed, gone
