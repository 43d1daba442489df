"""The notification use cases against an in-memory table and topic: subscribers per cluster and kind (an
e-mail address gets an SNS filter policy on cluster and kind), one notification per key, the console link,
and the test message."""

from __future__ import annotations

import pytest
from launchpod.contracts.notifications import NotificationTestRequest, SubscriberRequest
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain.errors import InvalidInput, NotFound
from launchpod.usecases import notifications

from tests.fakes.clusters import Clusters
from tests.fakes.notifications import NotificationDocs
from tests.fakes.sns import NotificationTopic

CONSOLE = "https://d111111abcdef8.cloudfront.net/"
HOOK = "https://hooks.slack.com/services/T000/B000/XXXX"


@pytest.fixture
def ports() -> notifications.NotificationPorts:
    return notifications.NotificationPorts(
        clusters=Clusters({"c1": {"name": "c1"}}),
        docs=NotificationDocs(),
        topic=NotificationTopic(),
        console_url=CONSOLE,
    )


def test_an_email_subscriber_gets_a_filter_policy_on_its_cluster_and_kinds_and_waits_for_confirmation(ports):
    request = SubscriberRequest(protocol="email", endpoint="oncall@example.com", kinds=["operation-failed"])
    view = notifications.add_subscriber("c1", request, False, ports=ports)
    [sub] = view.subscribers
    assert (sub.protocol, sub.endpoint, sub.kinds, sub.status) == (
        "email",
        "oncall@example.com",
        ["operation-failed"],
        "pending-confirmation",
    )
    [subscription] = ports.topic.subscriptions.values()
    assert subscription["filter"] == {"cluster": ["c1"], "kind": ["operation-failed", "test"]}
    subscription["pending"] = False
    assert notifications.list_subscribers("c1", ports=ports).subscribers[0].status == "confirmed"


def test_the_same_subscriber_with_the_same_kinds_is_noop_and_new_kinds_update_its_filter(ports):
    request = SubscriberRequest(protocol="email", endpoint="oncall@example.com", kinds=["operation-failed"])
    notifications.add_subscriber("c1", request, False, ports=ports)
    assert isinstance(notifications.add_subscriber("c1", request, False, ports=ports), NoopView)
    wider = SubscriberRequest(
        protocol="email", endpoint="oncall@example.com", kinds=["operation-failed", "incident-opened"]
    )
    plan = notifications.add_subscriber("c1", wider, True, ports=ports)
    assert isinstance(plan, PlanView) and plan.steps[0].action == "update"
    notifications.add_subscriber("c1", wider, False, ports=ports)
    [subscription] = ports.topic.subscriptions.values()
    assert subscription["filter"]["kind"] == ["incident-opened", "operation-failed", "test"]
    assert len(notifications.list_subscribers("c1", ports=ports).subscribers) == 1


def test_a_webhook_is_active_at_once_and_needs_no_sns_subscription(ports):
    view = notifications.add_subscriber("c1", SubscriberRequest(protocol="webhook", endpoint=HOOK), False, ports=ports)
    assert [(s.status, len(s.kinds)) for s in view.subscribers] == [("active", 6)]
    assert ports.topic.subscriptions == {}


@pytest.mark.parametrize(
    ("protocol", "endpoint", "words"),
    [
        ("webhook", "http://hooks.example.com/x", "must use https"),
        ("webhook", "http://127.0.0.1:9000/hook", "must use https"),
        ("email", "not-an-address", "is not an e-mail address"),
    ],
)
def test_endpoints_that_cannot_be_told_are_refused(ports, protocol, endpoint, words):
    with pytest.raises(InvalidInput, match=words):
        notifications.add_subscriber("c1", SubscriberRequest(protocol=protocol, endpoint=endpoint), False, ports=ports)


def test_loopback_http_webhooks_pass_only_where_the_deployment_allows_them(ports):
    allowed = notifications.NotificationPorts(**{**ports.__dict__, "allow_loopback": True})
    hook = "http://127.0.0.1:9000/hook"
    view = notifications.add_subscriber(
        "c1", SubscriberRequest(protocol="webhook", endpoint=hook), False, ports=allowed
    )
    assert view.subscribers[0].endpoint == hook


def test_removing_a_subscriber_unsubscribes_it_and_a_second_removal_is_noop(ports):
    request = SubscriberRequest(protocol="email", endpoint="oncall@example.com")
    sub_id = notifications.add_subscriber("c1", request, False, ports=ports).subscribers[0].id
    removed = notifications.remove_subscriber("c1", sub_id, False, ports=ports)
    assert removed.status == "REMOVED" and ports.topic.subscriptions == {}
    assert notifications.list_subscribers("c1", ports=ports).subscribers == []
    assert isinstance(notifications.remove_subscriber("c1", sub_id, False, ports=ports), NoopView)


def test_a_notification_is_published_once_per_key_with_its_attributes_and_console_link(ports):
    told = [
        notifications.notify(
            "c1", "operation-failed", "op-1", "create-hyperpod failed on c1", "boom", "/operations/op-1", ports=ports
        )
        for _ in range(3)
    ]
    assert told == [True, False, False]
    [message] = ports.topic.published
    assert message["attributes"] == {"cluster": "c1", "kind": "operation-failed"}
    assert message["body"]["link"] == "https://d111111abcdef8.cloudfront.net/operations/op-1"
    assert "Open in the console: https://d111111abcdef8.cloudfront.net/operations/op-1" in message["email"]
    # a different kind on the same key is its own notification
    assert notifications.notify("c1", "ladder-stopped", "op-1", "s", "t", "/clusters/c1", ports=ports)


def test_the_test_message_goes_to_the_cluster_with_the_test_kind_and_a_link_to_the_cluster(ports):
    notifications.add_subscriber("c1", SubscriberRequest(protocol="webhook", endpoint=HOOK), False, ports=ports)
    view = notifications.send_test("c1", NotificationTestRequest(), False, ports=ports)
    assert (view.subscribers, view.link) == (1, "https://d111111abcdef8.cloudfront.net/clusters/c1")
    assert ports.topic.published[0]["attributes"] == {"cluster": "c1", "kind": "test"}
    assert isinstance(notifications.send_test("c1", NotificationTestRequest(), True, ports=ports), PlanView)
    assert len(ports.topic.published) == 1


def test_an_unknown_cluster_is_not_found(ports):
    with pytest.raises(NotFound, match="Launchpod has no cluster c2"):
        notifications.list_subscribers("c2", ports=ports)
