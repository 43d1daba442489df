"""Notifications: who is told what about a cluster (e-mail through SNS, chat webhooks through the relay),
and the test message."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from launchpod.contracts.common import ClusterName, Contract

NotificationKind = Literal[
    "operation-failed", "incident-opened", "ladder-stopped", "job-failed", "endpoint-unhealthy", "plan-expiring"
]
KINDS: tuple[NotificationKind, ...] = NotificationKind.__args__  # type: ignore[attr-defined]
SubscriberProtocol = Literal["email", "webhook"]


class SubscriberRequest(Contract):
    protocol: SubscriberProtocol = Field(
        description="email: SNS e-mails the address (it must confirm first); webhook: a Slack- or Teams-compatible"
        ' incoming webhook URL, posted {"text": ...}'
    )
    endpoint: str = Field(
        min_length=3,
        max_length=2048,
        examples=["oncall@example.com", "https://hooks.slack.com/services/T000/B000/XXXX"],
        description="the e-mail address or the webhook's https URL",
    )
    kinds: list[NotificationKind] = Field(
        default_factory=lambda: list(KINDS), min_length=1, description="what to be told about; all kinds when omitted"
    )

    @field_validator("kinds")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        return sorted(set(value))


class SubscriberInput(SubscriberRequest):
    name: ClusterName


class SubscriberView(Contract):
    id: str = Field(description="the subscriber's id, for removing it")
    protocol: SubscriberProtocol
    endpoint: str
    kinds: list[NotificationKind]
    status: Literal["pending-confirmation", "confirmed", "active"] = Field(
        description="e-mail: pending-confirmation until the address follows SNS's link; webhooks are active at once"
    )


class NotificationSettingsView(Contract):
    cluster: str
    subscribers: list[SubscriberView]
    kinds: list[NotificationKind] = Field(default_factory=lambda: list(KINDS), description="every kind there is")


class SubscriberRef(Contract):
    name: ClusterName
    subscriberId: str = Field(min_length=1, max_length=64, pattern=r"^[a-f0-9]+$")


class RemovedSubscriberView(Contract):
    cluster: str
    subscriberId: str
    status: Literal["REMOVED"] = "REMOVED"


class NotificationTestRequest(Contract):
    message: str = Field(default="Test message from Launchpod", max_length=500)


class NotificationTestInput(NotificationTestRequest):
    name: ClusterName


class NotificationTestView(Contract):
    cluster: str
    messageId: str = Field(description="SNS's id of the published message")
    subscribers: int = Field(description="subscribers of the cluster the message was published for")
    link: str | None = Field(default=None, description="the console page the message links to")
