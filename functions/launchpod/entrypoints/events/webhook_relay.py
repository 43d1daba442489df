"""The webhook relay: subscribed to the notification topic, it posts each notification to the cluster's
chat webhooks that want its kind, as {"text": ...}.

Why a Lambda and not an SNS https subscription: SNS posts its own JSON envelope to an https endpoint and
first a SubscriptionConfirmation whose SubscribeURL the endpoint must GET
(https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.prepare.html); a Slack or Teams incoming
webhook does neither and accepts only its own payload ({"text": ...},
https://api.slack.com/messaging/webhooks). So a Lambda subscribed to the topic (protocol lambda, with
the SNS event, https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html) reformats and posts."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit

import urllib3

from launchpod.domain import notifications as rules
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

_HTTP = urllib3.PoolManager(timeout=urllib3.Timeout(connect=3, read=5), retries=urllib3.Retry(total=2))


def _addresses(url: str) -> list[str]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(parts.hostname or "", port)})


def _post(url: str, text: str) -> str:
    allow = settings().allow_loopback_webhooks
    try:
        problem = rules.url_problem(url, allow) or rules.address_problem(url, _addresses(url), allow)
    except OSError as exc:
        problem = f"Webhook {url} does not resolve: {exc}"
    if problem:
        logger.warning("webhook refused", extra={"reason": problem})
        return "refused"
    try:
        reply = _HTTP.request(
            "POST", url, body=json.dumps({"text": text}).encode(), headers={"Content-Type": "application/json"}
        )
    except urllib3.exceptions.HTTPError as exc:
        logger.warning("webhook unreachable", extra={"url": url, "error": str(exc)})
        return "unreachable"
    if reply.status >= 300:
        logger.warning("webhook answered an error", extra={"url": url, "status": reply.status})
    return str(reply.status)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    posted: dict[str, str] = {}
    for record in event.get("Records", []):
        sns = record.get("Sns") or {}
        attributes = sns.get("MessageAttributes") or {}
        cluster = (attributes.get("cluster") or {}).get("Value")
        kind = (attributes.get("kind") or {}).get("Value")
        if not cluster or not kind:
            continue
        try:
            body = json.loads(sns.get("Message") or "{}")
        except ValueError:
            body = {"text": sns.get("Message")}
        text = rules.chat_text(
            str(body.get("subject") or sns.get("Subject") or kind), body.get("text") or "", body.get("link")
        )
        subscribers, _ = wiring.notifications().subscribers(str(cluster))
        for sub in subscribers:
            if sub["protocol"] == "webhook" and rules.wants(sub, str(kind)):
                posted[sub["id"]] = _post(sub["endpoint"], text)
    return {"posted": posted}
