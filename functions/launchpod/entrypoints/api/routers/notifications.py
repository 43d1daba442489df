"""Who is told about a cluster (e-mail and chat-webhook subscribers per kind) and the test message, each
written at once after an explicit plan (NOOP, ``dryRun``) by usecases/notifications.py."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.notifications import (
    NotificationSettingsView,
    NotificationTestRequest,
    NotificationTestView,
    RemovedSubscriberView,
    SubscriberRequest,
)
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, JsonBody, Planned, json_response, route
from launchpod.usecases import notifications

router = APIGatewayRouter()


@route(router, "list_notification_subscribers")
def list_subscribers(name: ClusterPath) -> NotificationSettingsView:
    return notifications.list_subscribers(name, ports=notifications.real())


@route(router, "add_notification_subscriber")
def add_subscriber(
    name: ClusterPath, body: JsonBody[SubscriberRequest], dryRun: DryRunQuery = False
) -> Planned[NotificationSettingsView]:
    return json_response(notifications.add_subscriber(name, body, dryRun, ports=notifications.real()))


@route(router, "remove_notification_subscriber")
def remove_subscriber(
    name: ClusterPath,
    subscriberId: Annotated[str, Path(pattern=r"^[a-f0-9]+$", max_length=64)],
    dryRun: DryRunQuery = False,
) -> Planned[RemovedSubscriberView]:
    return json_response(notifications.remove_subscriber(name, subscriberId, dryRun, ports=notifications.real()))


@route(router, "send_test_notification")
def send_test(
    name: ClusterPath, body: JsonBody[NotificationTestRequest], dryRun: DryRunQuery = False
) -> Planned[NotificationTestView]:
    return json_response(notifications.send_test(name, body, dryRun, ports=notifications.real()))
