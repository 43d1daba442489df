"""The webhook relay: subscribed to the notification topic, it posts each notification to the cluster's
chat webhooks that want its kind, as {"text": ...} (usecases.notifications.relay).

Why a Lambda and not an SNS https subscription: SNS posts its own JSON envelope to an https endpoint and
first a SubscriptionConfirmation whose SubscribeURL the endpoint must GET
(https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.prepare.html); a Slack or Teams incoming
webhook does neither and accepts only its own payload ({"text": ...},
https://api.slack.com/messaging/webhooks). So a Lambda subscribed to the topic (protocol lambda, with
the SNS event, https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html) reformats and posts."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from launchpod.usecases import notifications


def _notice(record: dict[str, Any]) -> notifications.Published | None:
    sns = record.get("Sns") or {}
    attributes = sns.get("MessageAttributes") or {}
    cluster = (attributes.get("cluster") or {}).get("Value")
    kind = (attributes.get("kind") or {}).get("Value")
    if not cluster or not kind:
        return None
    try:
        body = json.loads(sns.get("Message") or "{}")
    except ValueError:
        body = {"text": sns.get("Message")}
    subject = str(body.get("subject") or sns.get("Subject") or kind)
    published = _timestamp(sns.get("Timestamp"))
    return notifications.Published(
        str(cluster), str(kind), subject, body.get("text") or "", body.get("link"), published_at=published
    )


def _timestamp(value: Any) -> datetime | None:
    """SNS's ISO 8601 ``Timestamp`` of the message ("2019-01-02T12:45:07.000Z")."""
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    notices = [n for n in map(_notice, event.get("Records", [])) if n is not None]
    return {"posted": notifications.relay(notices, ports=notifications.real())}
