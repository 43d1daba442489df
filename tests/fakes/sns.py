"""The deployment's SNS topic in memory: the NotificationTopic port (adapters.aws.sns); a published
notification is kept as the adapter would send it, through its builders."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.sns import message_attributes, message_body
from launchpod.domain.notifications import Notification


class NotificationTopic:
    """SNS's topic: what was published, and e-mail subscriptions with their filter policies (pending until
    ``confirm``)."""

    def __init__(self) -> None:
        self.published: list[dict[str, Any]] = []
        self.subscriptions: dict[str, dict[str, Any]] = {}

    def publish(self, notification: Notification) -> str:
        self.published.append(
            {
                "subject": notification.subject,
                "body": message_body(notification),
                "email": notification.email_text(),
                "attributes": message_attributes(notification),
            }
        )
        return f"m-{len(self.published)}"

    def subscribe_email(self, address: str, filter_policy: dict[str, list[str]]) -> str:
        arn = f"arn:aws:sns:us-east-1:123456789012:launchpod-notifications:{len(self.subscriptions) + 1}"
        self.subscriptions[arn] = {"endpoint": address, "filter": filter_policy, "pending": True}
        return arn

    def set_filter(self, subscription_arn: str, filter_policy: dict[str, list[str]]) -> None:
        self.subscriptions[subscription_arn]["filter"] = filter_policy

    def pending(self, subscription_arn: str) -> bool | None:
        found = self.subscriptions.get(subscription_arn)
        return None if found is None else bool(found["pending"])

    def unsubscribe(self, subscription_arn: str) -> None:
        self.subscriptions.pop(subscription_arn, None)
