"""Notifications: who is told about a cluster, and a test message to them."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef
from launchpod.contracts.common import Role
from launchpod.contracts.notifications import (
    NotificationSettingsView,
    NotificationTestInput,
    NotificationTestView,
    RemovedSubscriberView,
    SubscriberInput,
    SubscriberRef,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_notification_subscribers",
        "GET",
        "/api/clusters/{name}/notifications",
        "List who is told about the cluster: e-mail and chat-webhook subscribers, the kinds each gets (operation"
        " failed, incident opened, ladder stopped, job failed, endpoint unhealthy, plan expiring) and whether an"
        " e-mail address has confirmed.",
        ClusterRef,
        NotificationSettingsView,
        Role.VIEWER,
        tags=("notifications",),
    ),
    CatalogEntry(
        "add_notification_subscriber",
        "POST",
        "/api/clusters/{name}/notifications/subscribers",
        "Tell an e-mail address (SNS sends it a confirmation link first) or a Slack- or Teams-compatible webhook"
        " about the cluster, for the kinds given (all when omitted). NOOP when it already gets exactly those;"
        " dryRun true answers the plan.",
        SubscriberInput,
        NotificationSettingsView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
    CatalogEntry(
        "remove_notification_subscriber",
        "DELETE",
        "/api/clusters/{name}/notifications/subscribers/{subscriberId}",
        "Stop telling a subscriber about the cluster (its SNS subscription is removed). NOOP when it is gone;"
        " dryRun true answers the plan.",
        SubscriberRef,
        RemovedSubscriberView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
    CatalogEntry(
        "send_test_notification",
        "POST",
        "/api/clusters/{name}/notifications/test",
        "Send a test message to every subscriber of the cluster, with a link to its console page, to check"
        " that e-mails and webhooks arrive. dryRun true answers the plan.",
        NotificationTestInput,
        NotificationTestView,
        Role.ADMIN,
        mutates=True,
        idempotent=False,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
)
