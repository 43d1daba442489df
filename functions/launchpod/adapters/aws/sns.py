"""SNS: the deployment's notification topic. Every notification is published once with the message
attributes ``cluster`` and ``kind``; e-mail subscribers get it through a subscription filter policy on
those attributes (https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html; the scope is
MessageAttributes, https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering-scope.html), and the
webhook relay Lambda (entrypoints/events/webhook_relay.py) is subscribed to all of them."""

from __future__ import annotations

import json

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, translate
from launchpod.domain.errors import PermanentError
from launchpod.domain.notifications import Notification


def message_body(notification: Notification) -> dict[str, str | None]:
    """The JSON message the relay and any JSON subscriber get (entrypoints/events/webhook_relay.py reads it)."""
    n = notification
    return {"cluster": n.cluster, "kind": n.kind, "subject": n.subject, "text": n.text, "link": n.link}


def message_attributes(notification: Notification) -> dict[str, str]:
    """The message attributes e-mail subscriptions filter on (domain.notifications.filter_policy)."""
    return {"cluster": notification.cluster, "kind": notification.kind}


class Sns:
    def __init__(self, topic_arn: str | None) -> None:
        self.sns = client("sns")
        self.topic_arn = topic_arn

    def _topic(self) -> str:
        if not self.topic_arn:
            raise PermanentError(
                "This deployment has no notification topic (LAUNCHPOD_NOTIFICATIONS_TOPIC_ARN is unset); redeploy"
                " the stack, which creates it."
            )
        return self.topic_arn

    def publish(self, notification: Notification) -> str:
        """Publish once: its JSON body to the relay and any JSON subscriber, its e-mail text to e-mail
        (MessageStructure json: a "default" and per-protocol messages,
        https://docs.aws.amazon.com/sns/latest/dg/sns-send-custom-platform-specific-payloads-mobile-devices.html)."""
        message = {"default": json.dumps(message_body(notification)), "email": notification.email_text()}
        attributes = message_attributes(notification)
        with aws_call("sns:Publish"):
            out = self.sns.publish(
                TopicArn=self._topic(),
                Subject=notification.subject[:100],  # SNS: at most 100 characters, used as the e-mail's subject
                Message=json.dumps(message),
                MessageStructure="json",
                MessageAttributes={k: {"DataType": "String", "StringValue": v} for k, v in attributes.items()},
            )
        return str(out["MessageId"])

    def subscribe_email(self, address: str, filter_policy: dict[str, list[str]]) -> str:
        """The subscription's ARN (ReturnSubscriptionArn: SNS answers it even while pending confirmation)."""
        with aws_call("sns:Subscribe"):
            out = self.sns.subscribe(
                TopicArn=self._topic(),
                Protocol="email",
                Endpoint=address,
                Attributes={"FilterPolicy": json.dumps(filter_policy), "FilterPolicyScope": "MessageAttributes"},
                ReturnSubscriptionArn=True,
            )
        return str(out["SubscriptionArn"])

    def set_filter(self, subscription_arn: str, filter_policy: dict[str, list[str]]) -> None:
        with aws_call("sns:SetSubscriptionAttributes"):
            self.sns.set_subscription_attributes(
                SubscriptionArn=subscription_arn, AttributeName="FilterPolicy", AttributeValue=json.dumps(filter_policy)
            )

    def pending(self, subscription_arn: str) -> bool | None:
        """Whether the address has yet to confirm; None when SNS has no such subscription any more."""
        try:
            attributes = self.sns.get_subscription_attributes(SubscriptionArn=subscription_arn)["Attributes"]
        except ClientError as exc:
            if error_code(exc) in ("NotFound", "NotFoundException"):
                return None
            raise translate(exc, "sns:GetSubscriptionAttributes") from exc
        return str(attributes.get("PendingConfirmation", "false")).lower() == "true"

    def unsubscribe(self, subscription_arn: str) -> None:
        try:
            self.sns.unsubscribe(SubscriptionArn=subscription_arn)
        except ClientError as exc:
            # Gone already, or still pending: SNS deletes unconfirmed subscriptions itself after 48 hours
            # (https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.confirm.html).
            if error_code(exc) not in ("NotFound", "InvalidParameter"):
                raise translate(exc, "sns:Unsubscribe") from exc
