"""Notifications: who is told about a cluster, and telling them. One SNS topic per deployment carries
every notification with the attributes ``cluster`` and ``kind``; e-mail subscribers filter on them in SNS,
chat webhooks are posted by the relay (entrypoints/events/webhook_relay.py). Each notification is claimed
once by its key before it is published, so a retried handler or a repeated event tells nobody twice."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from launchpod.contracts.notifications import (
    NotificationSettingsView,
    NotificationTestRequest,
    NotificationTestView,
    RemovedSubscriberView,
    SubscriberRequest,
    SubscriberView,
)
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain import notifications as rules
from launchpod.domain.errors import Conflict, InvalidInput, LaunchpodError, NotFound, next_step
from launchpod.domain.notifications import Subscriber
from launchpod.domain.operations import now
from launchpod.domain.plan import Plan, Step
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.runtime.wiring import Webhooks
from launchpod.usecases.ports import ClusterRecords, NotificationDocs, NotificationTopic
from launchpod.usecases.proposal import at_once

# A child of powertools' "launchpod" logger (entrypoints.observability): its records carry the invocation's keys.
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NotificationPorts:
    clusters: ClusterRecords
    docs: NotificationDocs
    topic: NotificationTopic
    console_url: str | None = None
    allow_loopback: bool = False
    webhooks: Webhooks | None = None


def real() -> NotificationPorts:
    """The deployed adapters (runtime.wiring)."""
    s = settings()
    return NotificationPorts(
        clusters=wiring.clusters(),
        docs=wiring.notifications(),
        topic=wiring.sns(),
        console_url=s.console_url,
        allow_loopback=s.allow_loopback_webhooks,
        webhooks=wiring.webhooks(),
    )


def _known(name: str, ports: NotificationPorts) -> None:
    if ports.clusters.get(name) is None:
        raise NotFound(f"Launchpod has no cluster {name}.", details=[next_step("GET /api/clusters")])


def _rewrite(cluster: str, change: Callable[[list[Subscriber]], bool], *, ports: NotificationPorts) -> None:
    for _ in range(8):
        subscribers, version = ports.docs.subscribers(cluster)
        if not change(subscribers):
            return
        if ports.docs.put_subscribers(cluster, subscribers, version):
            return
    raise Conflict(f"The subscribers of {cluster} kept changing under concurrent writers; try again.")


def _view(sub: Subscriber, ports: NotificationPorts) -> SubscriberView:
    status: Literal["pending-confirmation", "confirmed", "active"] = "active"
    if sub.protocol == "email":
        pending = ports.topic.pending(sub.subscription_arn) if sub.subscription_arn else True
        status = "pending-confirmation" if pending else "confirmed"
    return SubscriberView(id=sub.id, protocol=sub.protocol, endpoint=sub.endpoint, kinds=list(sub.kinds), status=status)


def list_subscribers(name: str, *, ports: NotificationPorts) -> NotificationSettingsView:
    _known(name, ports)
    subscribers, _ = ports.docs.subscribers(name)
    return NotificationSettingsView(cluster=name, subscribers=[_view(s, ports) for s in subscribers])


def _subscriber_id(protocol: str, endpoint: str) -> str:
    return hashlib.sha256(f"{protocol}:{endpoint}".encode()).hexdigest()[:16]


def add_subscriber(
    name: str, request: SubscriberRequest, dry_run: bool, *, ports: NotificationPorts
) -> NotificationSettingsView | NoopView | PlanView:
    """Subscribe an address or a webhook, planned against the stored subscribers: NOOP when it already gets
    exactly these kinds, the plan on a dry run, else subscribed (e-mail in SNS with its filter policy)."""
    _known(name, ports)
    problem = (
        rules.email_problem(request.endpoint)
        if request.protocol == "email"
        else rules.url_problem(request.endpoint, ports.allow_loopback)
    )
    if problem:
        raise InvalidInput(problem, field="body.endpoint", rule="notification_endpoint")
    sub_id = _subscriber_id(request.protocol, request.endpoint)
    subscribers, _ = ports.docs.subscribers(name)
    existing = next((s for s in subscribers if s.id == sub_id), None)
    target = f"{request.protocol} subscriber {request.endpoint}"
    if existing is None:
        steps: tuple[Step, ...] = (Step("create", target, f"told about {', '.join(request.kinds)} on {name}"),)
    elif list(existing.kinds) != request.kinds:
        steps = (Step("update", target, f"kinds {', '.join(existing.kinds)} -> {', '.join(request.kinds)}"),)
    else:
        steps = ()
    plan = Plan(target=name, steps=steps)

    def apply() -> NotificationSettingsView:
        policy = rules.filter_policy(name, request.kinds)
        arn = existing.subscription_arn if existing else None
        if request.protocol == "email":
            if arn:
                ports.topic.set_filter(arn, policy)
            else:
                arn = ports.topic.subscribe_email(request.endpoint, policy)
        record = Subscriber(
            id=sub_id,
            protocol=request.protocol,
            endpoint=request.endpoint,
            kinds=tuple(request.kinds),
            # when it started listening: a notification published before it is not its to get (relay)
            since=(existing.since if existing else None) or now(),
            subscription_arn=arn or None,
        )

        def change(subs: list[Subscriber]) -> bool:
            subs[:] = [s for s in subs if s.id != sub_id] + [record]
            return True

        _rewrite(name, change, ports=ports)
        return list_subscribers(name, ports=ports)

    return at_once(plan, dry_run, f"{target} already gets exactly these kinds on {name}; no changes.", apply)


def remove_subscriber(
    name: str, subscriber_id: str, dry_run: bool, *, ports: NotificationPorts
) -> RemovedSubscriberView | NoopView | PlanView:
    _known(name, ports)
    subscribers, _ = ports.docs.subscribers(name)
    found = next((s for s in subscribers if s.id == subscriber_id), None)
    steps = (Step("delete", f"{found.protocol} subscriber {found.endpoint}", "asked to remove it"),) if found else ()

    def apply() -> RemovedSubscriberView:
        if found and found.subscription_arn:
            ports.topic.unsubscribe(found.subscription_arn)

        def change(subs: list[Subscriber]) -> bool:
            before = len(subs)
            subs[:] = [s for s in subs if s.id != subscriber_id]
            return len(subs) != before

        _rewrite(name, change, ports=ports)
        return RemovedSubscriberView(cluster=name, subscriberId=subscriber_id)

    noop = f"{name} has no subscriber {subscriber_id}; nothing to remove."
    return at_once(Plan(target=name, steps=steps), dry_run, noop, apply)


def _publish(
    cluster: str, kind: str, subject: str, text: str, path: str, *, ports: NotificationPorts
) -> tuple[str, str | None]:
    url = rules.link(ports.console_url, path)
    return ports.topic.publish(rules.Notification(cluster, kind, subject, text, url)), url


def send_test(
    name: str, request: NotificationTestRequest, dry_run: bool, *, ports: NotificationPorts
) -> NotificationTestView | NoopView | PlanView:
    _known(name, ports)
    subscribers, _ = ports.docs.subscribers(name)
    step = Step("publish", f"test message to {len(subscribers)} subscribers of {name}", "asked for a test message")
    plan = Plan(target=name, steps=(step,))

    def apply() -> NotificationTestView:
        message_id, url = _publish(
            name, rules.TEST_KIND, f"Launchpod test: {name}", request.message, f"/clusters/{name}", ports=ports
        )
        return NotificationTestView(cluster=name, messageId=message_id, subscribers=len(subscribers), link=url)

    return at_once(plan, dry_run, "", apply)


def notify(cluster: str, kind: str, key: str, subject: str, text: str, path: str, *, ports: NotificationPorts) -> bool:
    """Tell the cluster's subscribers, once per ``key`` and ``kind``: False when it was told before."""
    if not ports.docs.claim(f"{kind}#{key}"):
        return False
    _publish(cluster, kind, subject, text, path, ports=ports)
    return True


def tell(cluster: str, kind: str, key: str, subject: str, text: str, path: str, *, ports: NotificationPorts) -> bool:
    """``notify`` from a handler that saw something happen: a notification that cannot be sent is logged,
    never fails the handler's own work."""
    try:
        return notify(cluster, kind, key, subject, text, path, ports=ports)
    except LaunchpodError as exc:
        log.warning("notification not sent", extra={"cluster": cluster, "kind": kind, "error": exc.message})
        return False


@dataclass(frozen=True)
class Published(rules.Notification):
    """One notification as the topic delivered it to the webhook relay (its attributes and JSON body), with
    SNS's Timestamp of the message."""

    published_at: datetime | None = None


def _post(url: str, text: str, *, webhooks: Webhooks, allow_loopback: bool) -> str:
    """The webhook's HTTP status, or why it was not called ("refused") or not reached ("unreachable")."""
    try:
        problem = rules.url_problem(url, allow_loopback) or rules.address_problem(
            url, webhooks.addresses(url), allow_loopback
        )
    except OSError as exc:
        problem = f"Webhook {url} does not resolve: {exc}"
    if problem:
        log.warning("webhook refused", extra={"reason": problem})
        return "refused"
    try:
        status = webhooks.post_json(url, {"text": text})
    except LaunchpodError as exc:
        log.warning("webhook unreachable", extra={"url": url, "error": exc.message})
        return "unreachable"
    if status >= 300:
        log.warning("webhook answered an error", extra={"url": url, "status": status})
    return str(status)


def _listening(subscriber: Subscriber, notice: Published) -> bool:
    """Whether the subscriber was there when the notification was published: SNS invokes the relay
    asynchronously (https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html), so a webhook added after a
    failure can be read before that failure's message is relayed; e-mail subscriptions get only what SNS
    publishes after they exist, and a webhook is held to the same."""
    if subscriber.since is None or notice.published_at is None:
        return True
    return subscriber.since <= notice.published_at


def relay(notices: Iterable[Published], *, ports: NotificationPorts) -> dict[str, str]:
    """Post each notification, as ``{"text": ...}``, to its cluster's chat webhooks that want its kind:
    what each webhook answered, by subscriber id."""
    if ports.webhooks is None:
        raise RuntimeError("relay needs NotificationPorts.webhooks (notifications.real() gives the deployed one)")
    posted: dict[str, str] = {}
    for notice in notices:
        text = rules.chat_text(notice.subject, notice.text, notice.link)
        subscribers, _ = ports.docs.subscribers(notice.cluster)
        for sub in subscribers:
            if sub.protocol == "webhook" and rules.wants(sub, notice.kind) and _listening(sub, notice):
                posted[sub.id] = _post(sub.endpoint, text, webhooks=ports.webhooks, allow_loopback=ports.allow_loopback)
    return posted
