"""The webhook relay as SNS invokes it: a notification reaches the cluster's webhooks that want its kind as
{"text": ...} with the console link, others are not posted, and a webhook on a private address is refused."""

from __future__ import annotations

import json

import pytest
from launchpod.adapters.store.notifications import DynamoNotifications, subscriber_of
from launchpod.entrypoints.events import webhook_relay
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

from sandbox.webhooks import WebhookReceiver


@pytest.fixture
def receiver():
    found = WebhookReceiver().start()
    yield found
    found.stop()


@pytest.fixture
def store(tables, monkeypatch):
    monkeypatch.setenv("LAUNCHPOD_ALLOW_LOOPBACK_WEBHOOKS", "true")
    settings.cache_clear()
    docs = DynamoNotifications(tables["notifications"])
    monkeypatch.setattr(wiring, "notifications", lambda: docs)
    yield docs
    settings.cache_clear()


def _event(kind: str, text: str, published: str | None = None) -> dict:
    body = {"subject": "create-hyperpod failed on c1", "text": text, "link": "http://console/operations/op-1"}
    return {
        "Records": [
            {
                "EventSource": "aws:sns",
                "Sns": {
                    "Type": "Notification",
                    **({"Timestamp": published} if published else {}),
                    "Message": json.dumps(body),
                    "MessageAttributes": {
                        "cluster": {"Type": "String", "Value": "c1"},
                        "kind": {"Type": "String", "Value": kind},
                    },
                },
            }
        ]
    }


def test_a_notification_reaches_the_webhooks_that_want_its_kind(store, receiver):
    subs = [
        {"id": "a", "protocol": "webhook", "endpoint": receiver.url("/a"), "kinds": ["operation-failed"]},
        {"id": "b", "protocol": "webhook", "endpoint": receiver.url("/b"), "kinds": ["incident-opened"]},
        {"id": "c", "protocol": "email", "endpoint": "x@example.com", "kinds": ["operation-failed"]},
    ]
    assert store.put_subscribers("c1", [subscriber_of(s) for s in subs], 0)
    out = webhook_relay.handler(_event("operation-failed", "boom"), None)
    assert out == {"posted": {"a": "200"}}
    [post] = receiver.posts("/a")
    assert post.body == {"text": "*create-hyperpod failed on c1*\nboom\nhttp://console/operations/op-1"}
    assert receiver.posts("/b") == []
    # the test message goes to every webhook
    assert set(webhook_relay.handler(_event("test", "hello"), None)["posted"]) == {"a", "b"}


def test_a_webhook_on_a_private_address_is_refused_and_not_called(store):
    hook = {"id": "p", "protocol": "webhook", "endpoint": "https://10.0.0.5/hook", "kinds": ["operation-failed"]}
    assert store.put_subscribers("c1", [subscriber_of(hook)], 0)
    assert webhook_relay.handler(_event("operation-failed", "boom"), None) == {"posted": {"p": "refused"}}


def test_a_webhook_added_after_a_notification_was_published_does_not_get_it(store, receiver):
    """SNS invokes the relay asynchronously: a webhook subscribed after the failure, but before its message is
    relayed, must not be told about a failure that happened before it listened."""
    subs = [
        {
            "id": "old",
            "protocol": "webhook",
            "endpoint": receiver.url("/old"),
            "kinds": ["operation-failed"],
            "since": "2026-12-05T10:00:00+00:00",
        },
        {
            "id": "new",
            "protocol": "webhook",
            "endpoint": receiver.url("/new"),
            "kinds": ["operation-failed"],
            "since": "2026-12-05T10:00:05+00:00",
        },
    ]
    assert store.put_subscribers("c1", [subscriber_of(s) for s in subs], 0)
    out = webhook_relay.handler(_event("operation-failed", "boom", published="2026-12-05T10:00:02.000Z"), None)
    assert out["posted"] == {"old": "200"}
    assert receiver.posts("/new") == []
