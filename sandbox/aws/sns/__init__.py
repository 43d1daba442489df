"""SNS in the sandbox: every delivery SNS was asked to make is recorded (what the tests and the sandbox
controls read), e-mail and HTTP(S) subscriptions wait for confirmation as on AWS, Lambda subscribers are
invoked as Lambda's SNS event, and HTTP(S) delivery goes to loopback only.

moto 5.2.5 confirms every subscription at once, drops e-mail silently, posts HTTP(S) to any address,
and runs a Lambda subscriber in its own (Docker) Lambda. Here, as AWS documents it:
- e-mail and HTTP(S) subscriptions are "pending confirmation" and get nothing until confirmed
  (https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.confirm.html; ``confirm`` stands in for
  the link the address follows);
- a Lambda subscriber is invoked asynchronously with {"Records": [{"EventSource": "aws:sns", "Sns": {...,
  "MessageAttributes": {name: {"Type", "Value"}}}}]} (https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html);
- MessageStructure json picks the protocol's message, else "default" (moto does this part).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from sandbox.aws.core import once, patch
from sandbox.aws.state import STATE

log = logging.getLogger(__name__)
_lock = threading.Lock()
_CONFIRMED_BY_ITSELF = ("lambda", "sqs", "application", "sms", "firehose")


@dataclass
class Delivery:
    """One message SNS was asked to deliver to one subscriber, and what became of it."""

    protocol: str
    endpoint: str
    subscription_arn: str
    message_id: str
    subject: str | None
    message: str
    attributes: dict[str, str]
    outcome: str  # delivered, pending-confirmation, refused (not loopback), failed: ...
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())


@dataclass
class SnsState:
    """What SNS delivered."""

    deliveries: list[Delivery] = field(default_factory=list)  # what SNS was asked to deliver, oldest first


def _state() -> SnsState:
    return STATE.of(SnsState)


def deliveries(protocol: str | None = None) -> list[Delivery]:
    with _lock:
        return [d for d in _state().deliveries if protocol is None or d.protocol == protocol]


def _record(delivery: Delivery) -> None:
    with _lock:
        _state().deliveries.append(delivery)


def _invoke(function_arn: str, event: dict[str, Any]) -> None:
    import boto3

    try:
        out = boto3.client("lambda", region_name=function_arn.split(":")[3]).invoke(
            FunctionName=function_arn, Payload=json.dumps(event).encode()
        )
        if out.get("FunctionError"):
            log.warning("SNS subscriber %s failed: %s", function_arn, out["Payload"].read()[:500])
    except Exception:  # the sandbox is shutting down, or the function is gone
        log.warning("SNS could not invoke %s", function_arn, exc_info=True)


def _lambda_event(
    sub: Any, message: str, message_id: str, subject: str | None, attrs: dict[str, Any]
) -> dict[str, Any]:
    return {
        "Records": [
            {
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": sub.arn,
                "Sns": {
                    "Type": "Notification",
                    "MessageId": message_id,
                    "TopicArn": sub.topic.arn,
                    "Subject": subject,
                    "Message": message,
                    "Timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                    "MessageAttributes": {k: {"Type": v["Type"], "Value": v["Value"]} for k, v in attrs.items()},
                },
            }
        ]
    }


def _loopback(endpoint: str) -> bool:
    return (urlsplit(endpoint).hostname or "") in ("127.0.0.1", "localhost", "::1")


def confirm(subscription_arn: str) -> None:
    """The address followed SNS's confirmation link (ConfirmSubscription with its token)."""
    from moto.sns.models import sns_backends

    for backend in (b for regions in sns_backends.values() for b in regions.values()):
        sub = backend.subscriptions.get(subscription_arn)
        if sub is not None:
            sub.attributes["PendingConfirmation"] = False
            return
    raise KeyError(subscription_arn)


@once
def install() -> None:
    """Record, confirm and deliver as above (idempotent)."""
    from moto.sns.models import SNSBackend, Subscription

    original_publish = Subscription.publish
    original_subscribe = SNSBackend.subscribe

    def subscribe(self: SNSBackend, topic_arn: str, endpoint: str, protocol: str) -> Subscription:
        known = self._find_subscription(topic_arn, endpoint, protocol)
        sub = original_subscribe(self, topic_arn, endpoint, protocol)
        if known is None and protocol not in _CONFIRMED_BY_ITSELF:
            sub.attributes["PendingConfirmation"] = True
            sub.attributes["ConfirmationWasAuthenticated"] = False
        return sub

    def publish(self: Subscription, message: str, message_id: str, subject: str | None = None, **kw: Any) -> None:
        attrs = kw.get("message_attributes") or {}
        if self.protocol not in ("lambda", "email", "email-json", "http", "https"):
            original_publish(self, message, message_id, subject=subject, **kw)
            return
        if self._filter_policy_matcher is not None and not self._filter_policy_matcher.matches(attrs, message):
            return
        if kw.get("message_structure") == "json":
            message = self._parse_message_structure(message, self.protocol)
        delivery = Delivery(
            self.protocol,
            self.endpoint,
            self.arn,
            message_id,
            subject,
            message,
            {k: str(v.get("Value")) for k, v in attrs.items()},
            "delivered",
        )
        if self.attributes.get("PendingConfirmation") in (True, "true"):
            delivery.outcome = "pending-confirmation"  # nothing is delivered before the confirmation
        elif self.protocol == "lambda":
            event = _lambda_event(self, message, message_id, subject, attrs)
            threading.Thread(target=_invoke, args=(self.endpoint, event), name="sns-lambda", daemon=True).start()
        elif self.protocol in ("http", "https"):
            if not _loopback(self.endpoint):
                delivery.outcome = "refused: the sandbox delivers HTTP(S) to loopback only"
            else:
                try:
                    original_publish(self, message, message_id, subject=subject, **kw)
                except Exception as exc:
                    delivery.outcome = f"failed: {exc}"
        _record(delivery)

    patch(SNSBackend, "subscribe", subscribe)
    patch(Subscription, "publish", publish)
