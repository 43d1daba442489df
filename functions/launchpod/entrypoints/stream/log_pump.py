"""The live log pump of one topic ``logs:<cluster>/<namespace>/<pod>``.

Started by ws-message when a connection subscribes and no pump holds the topic's lease. Each round it
reads the pod's log since its cursor (``timestamps=true&sinceTime=``, launchpod.domain.jobs.log_cursor),
posts the new lines in batches to every subscriber, and waits a moment. It stops when the pod has ended
(after its last lines, with an ``ended`` message) or nobody listens. Before its deadline it hands over to
its next invocation (an asynchronous Invoke of itself with the cursor and the lease it keeps), and the
cursor only moves past lines that were posted, so none is lost or repeated across the hand-over.
"""

from __future__ import annotations

import time
from typing import Any

from launchpod.adapters.aws.lambda_invoke import invoke_async
from launchpod.adapters.k8s import log_follow
from launchpod.domain.errors import LaunchpodError, RetryableError
from launchpod.domain.jobs import log_cursor
from launchpod.domain.jobs.log_cursor import Cursor
from launchpod.entrypoints.observability import logger
from launchpod.entrypoints.stream.publish import publish
from launchpod.runtime import wiring

POLL_SECONDS = 0.2
# Time kept back for one more round (read, post) and the hand-over itself.
HANDOVER_MARGIN_MS = 1500
ENDED_PHASES = ("Succeeded", "Failed")


def topic_parts(topic: str) -> tuple[str, str, str]:
    cluster, namespace, pod = topic.removeprefix("logs:").split("/", 2)
    return cluster, namespace, pod


def _post(topic: str, pod: str, container: str | None, lines: list[tuple[str, str]]) -> int:
    pushed, _ = publish(topic, "log", {"pod": pod, "container": container, "lines": [text for _, text in lines]})
    return pushed


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    topic, holder = str(event["topic"]), str(event["holder"])
    cursor = Cursor.from_dict(event.get("cursor"))
    handovers = int(event.get("handovers") or 0)
    cluster, namespace, name = topic_parts(topic)
    pumps, connections = wiring.log_pumps(), wiring.connections()
    sent = 0
    container: str | None = event.get("container")
    while True:
        if context.get_remaining_time_in_millis() < HANDOVER_MARGIN_MS:
            return _hand_over(context, topic, holder, cursor, container, handovers + 1, sent)
        if not connections.subscribers(topic):
            pumps.release(topic, holder)
            # A subscriber that came between the check and the release found the lease held: take it back.
            if not connections.subscribers(topic) or not pumps.acquire(topic, holder):
                return {"topic": topic, "stopped": "no subscribers", "sent": sent, "handovers": handovers}
            continue
        try:
            found = log_follow.pod(cluster, namespace, name)
            ended = found is None or (found.get("status") or {}).get("phase") in ENDED_PHASES
            if found is not None and container is None:
                container = log_follow.default_container(found)
            text = log_follow.read_since(cluster, namespace, name, container, cursor.stamp) if found else ""
        except RetryableError as exc:
            logger.warning("log pump read failed; trying again", extra={"topic": topic, "error": exc.message})
            time.sleep(POLL_SECONDS)
            continue
        except LaunchpodError as exc:  # the cluster is unknown or refuses us: nothing will change that
            publish(topic, "error", {"pod": name, "message": exc.message, "ended": True})
            pumps.release(topic, holder)
            return {"topic": topic, "stopped": exc.message, "sent": sent, "handovers": handovers}
        fresh = log_cursor.new_lines(cursor, text or "", final=ended)
        for batch in log_cursor.batches(fresh):
            if context.get_remaining_time_in_millis() < HANDOVER_MARGIN_MS:
                return _hand_over(context, topic, holder, cursor, container, handovers + 1, sent)
            _post(topic, name, container, batch)
            cursor = log_cursor.after(cursor, batch)
            sent += len(batch)
        if ended and len((text or "").encode()) < log_follow.READ_LIMIT_BYTES:
            reason = "the pod is gone" if found is None else f"the pod {found['status']['phase']}"
            last: dict[str, Any] = {"pod": name, "container": container, "lines": [], "ended": True}
            publish(topic, "log", {**last, "reason": reason, "handovers": handovers})
            pumps.release(topic, holder)
            return {"topic": topic, "stopped": reason, "sent": sent, "handovers": handovers}
        if not fresh:
            time.sleep(POLL_SECONDS)


def _hand_over(
    context: Any, topic: str, holder: str, cursor: Cursor, container: str | None, handovers: int, sent: int
) -> dict[str, Any]:
    if not wiring.log_pumps().renew(topic, holder):
        return {"topic": topic, "stopped": "lease lost", "sent": sent, "handovers": handovers}
    invoke_async(
        context.function_name,
        {"topic": topic, "holder": holder, "cursor": cursor.to_dict(), "container": container, "handovers": handovers},
    )
    return {"topic": topic, "handedOver": True, "sent": sent, "handovers": handovers}
