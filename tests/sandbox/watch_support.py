"""The watcher's e2e helpers: a chat webhook subscribed to a shared cluster for some kinds (removed after), and
one run of the scheduled watcher, invoked as its EventBridge schedule would (the sandbox runs no cron)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

from sandbox.webhooks import WebhookReceiver

WATCH = "launchpod-events-drift-check"  # the function the Watch schedule invokes with {"check": "watch"}


@contextlib.contextmanager
def webhook(sandbox, cluster: str, kinds: list[str]) -> Iterator[tuple[WebhookReceiver, str]]:
    """A local receiver subscribed to ``cluster`` for ``kinds``, and the path it is posted at; unsubscribed on exit
    (the cluster is shared with other modules)."""
    receiver = WebhookReceiver().start()
    path = f"/{cluster}-watch"
    try:
        with sandbox.client() as c:
            body = {"protocol": "webhook", "endpoint": receiver.url(path), "kinds": kinds}
            added = c.post(f"/api/clusters/{cluster}/notifications/subscribers", json=body)
            assert added.status_code == 200, added.text
            [sub] = [s for s in added.json()["subscribers"] if s["endpoint"] == receiver.url(path)]
        yield receiver, path
    finally:
        with sandbox.client() as c:
            c.delete(f"/api/clusters/{cluster}/notifications/subscribers/{sub['id']}")
        receiver.stop()


def watch(sandbox, **event: object) -> dict:
    """One scheduled run (``event`` added to what the schedule sends): what it told, by cluster and kind."""
    payload = json.dumps({"check": "watch", **event}).encode()
    answer = sandbox.aws("lambda").invoke(FunctionName=WATCH, Payload=payload)
    payload = json.loads(answer["Payload"].read())
    assert "FunctionError" not in answer, payload
    return dict(payload)


def texts(receiver: WebhookReceiver, path: str, words: str) -> list[str]:
    return [r.body["text"] for r in receiver.posts(path) if words in r.body.get("text", "")]
