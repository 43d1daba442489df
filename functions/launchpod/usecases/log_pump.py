"""The live log pump of one topic ``logs:<cluster>/<namespace>/<pod>``.

Started by a subscription when no pump holds the topic's lease (usecases.streaming.start_log_pump). Each
round it reads the pod's log since its cursor (``timestamps=true&sinceTime=``,
launchpod.domain.jobs.log_cursor), posts the new lines in batches to every subscriber, and waits a moment.
It stops when the pod has ended (after its last lines, with an ``ended`` message) or nobody listens. Before
its deadline it hands over to its next invocation (an asynchronous Invoke of itself with the cursor and the
lease it keeps), and the cursor only moves past lines that were posted, so none is lost or repeated across
the hand-over.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from launchpod.domain.errors import LaunchpodError, RetryableError
from launchpod.domain.jobs import log_cursor
from launchpod.domain.jobs.log_cursor import Cursor
from launchpod.runtime import wiring
from launchpod.runtime.wiring import PodLogs
from launchpod.usecases import streaming
from launchpod.usecases.streaming import StreamPorts, publish

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)

POLL_SECONDS = 0.2
# Time kept back for one more round (read, post) and the hand-over itself.
HANDOVER_MARGIN_MS = 1500
ENDED_PHASES = ("Succeeded", "Failed")


@dataclass(frozen=True)
class PumpPorts:
    stream: StreamPorts
    logs: PodLogs
    sleep: Callable[[float], None] = field(default=time.sleep)


def real() -> PumpPorts:
    """The deployed adapters (runtime.wiring)."""
    return PumpPorts(stream=streaming.real(), logs=wiring.pod_logs())


@dataclass(frozen=True)
class Invocation:
    """What one invocation of the pump is handed: by the subscription that started it, or by its previous
    invocation at a hand-over."""

    topic: str
    holder: str
    cursor: Cursor
    container: str | None = None
    handovers: int = 0

    def to_event(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "holder": self.holder,
            "cursor": self.cursor.to_dict(),
            "container": self.container,
            "handovers": self.handovers,
        }


@dataclass(frozen=True)
class Lambda:
    """The invocation's own Lambda: its name (to hand over to) and the time it has left."""

    function_name: str
    remaining_ms: Callable[[], int]


def topic_parts(topic: str) -> tuple[str, str, str]:
    cluster, namespace, pod = topic.removeprefix("logs:").split("/", 2)
    return cluster, namespace, pod


def pump(run: Invocation, me: Lambda, *, ports: PumpPorts) -> dict[str, Any]:
    """Pump the topic's log until the pod ends, nobody listens, or the invocation hands over."""
    topic, holder, cursor, container, handovers = run.topic, run.holder, run.cursor, run.container, run.handovers
    cluster, namespace, name = topic_parts(topic)
    stream, logs = ports.stream, ports.logs
    sent = 0

    def hand_over() -> dict[str, Any]:
        return _hand_over(Invocation(topic, holder, cursor, container, handovers + 1), me, sent, ports=stream)

    while True:
        if me.remaining_ms() < HANDOVER_MARGIN_MS:
            return hand_over()
        if not stream.connections.subscribers(topic):
            stream.pumps.release(topic, holder)
            # A subscriber that came between the check and the release found the lease held: take it back.
            if not stream.connections.subscribers(topic) or not stream.pumps.acquire(topic, holder):
                return {"topic": topic, "stopped": "no subscribers", "sent": sent, "handovers": handovers}
            continue
        try:
            found = logs.pod(cluster, namespace, name)
            ended = found is None or (found.get("status") or {}).get("phase") in ENDED_PHASES
            if found is not None and container is None:
                container = logs.default_container(found)
            text = logs.read_since(cluster, namespace, name, container, cursor.stamp) if found else ""
        except RetryableError as exc:
            log.warning("log pump read failed; trying again", extra={"topic": topic, "error": exc.message})
            ports.sleep(POLL_SECONDS)
            continue
        except LaunchpodError as exc:  # the cluster is unknown or refuses us: nothing will change that
            publish(topic, "error", {"pod": name, "message": exc.message, "ended": True}, ports=stream)
            stream.pumps.release(topic, holder)
            return {"topic": topic, "stopped": exc.message, "sent": sent, "handovers": handovers}
        fresh = log_cursor.new_lines(cursor, text or "", final=ended)
        for batch in log_cursor.batches(fresh):
            if me.remaining_ms() < HANDOVER_MARGIN_MS:
                return hand_over()
            lines = {"pod": name, "container": container, "lines": [line for _, line in batch]}
            publish(topic, "log", lines, ports=stream)
            cursor = log_cursor.after(cursor, batch)
            sent += len(batch)
        if ended and len((text or "").encode()) < logs.READ_LIMIT_BYTES:
            reason = "the pod is gone" if found is None else f"the pod {found['status']['phase']}"
            last: dict[str, Any] = {"pod": name, "container": container, "lines": [], "ended": True}
            publish(topic, "log", {**last, "reason": reason, "handovers": handovers}, ports=stream)
            stream.pumps.release(topic, holder)
            return {"topic": topic, "stopped": reason, "sent": sent, "handovers": handovers}
        if not fresh:
            ports.sleep(POLL_SECONDS)


def _hand_over(next_run: Invocation, me: Lambda, sent: int, *, ports: StreamPorts) -> dict[str, Any]:
    if not ports.pumps.renew(next_run.topic, next_run.holder):
        return {"topic": next_run.topic, "stopped": "lease lost", "sent": sent, "handovers": next_run.handovers}
    ports.invoke(me.function_name, next_run.to_event())
    return {"topic": next_run.topic, "handedOver": True, "sent": sent, "handovers": next_run.handovers}
