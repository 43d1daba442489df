"""Notifications, the pure rules: the SNS filter policy of a subscriber, the console page a notification
links to, the chat payload a webhook is posted, and which webhook URLs may be called at all (SSRF)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

TEST_KIND = "test"  # the test message goes to every subscriber of the cluster, whatever kinds it chose
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def filter_policy(cluster: str, kinds: Iterable[str]) -> dict[str, list[str]]:
    """An SNS subscription filter policy on the message attributes: this cluster, these kinds (and the test
    message). Attribute names AND, values in a list OR
    (https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html)."""
    return {"cluster": [cluster], "kind": sorted({*kinds, TEST_KIND})}


def wants(subscriber: dict[str, Any], kind: str) -> bool:
    return kind == TEST_KIND or kind in subscriber["kinds"]


def link(console_url: str | None, path: str) -> str | None:
    """The console page (web/src/App.tsx routes: /clusters/:name, /operations/:id)."""
    return f"{console_url.rstrip('/')}{path}" if console_url else None


def chat_text(subject: str, text: str, url: str | None) -> str:
    """One message Slack's and Teams' incoming webhooks both show: {"text": ...} with the link on its own
    line (Slack: https://api.slack.com/messaging/webhooks; Teams' connectors take the same "text")."""
    return "\n".join(part for part in (f"*{subject}*", text, url) if part)


def email_problem(address: str) -> str | None:
    return None if _EMAIL.match(address) else f"{address!r} is not an e-mail address."


def url_problem(url: str, allow_loopback: bool) -> str | None:
    """Why a webhook URL may not be used as written: https only (plain http only to loopback where allowed)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return f"{url!r} is not a URL; give the webhook's https:// address."
    loopback = parts.hostname == "localhost" or _is(parts.hostname, "is_loopback")
    if parts.scheme != "https" and not (allow_loopback and loopback and parts.scheme == "http"):
        return f"Webhook {url} must use https."
    return None


def _is(host: str, flag: str) -> bool:
    try:
        return bool(getattr(ipaddress.ip_address(host), flag))
    except ValueError:
        return False


def address_problem(url: str, addresses: Iterable[str], allow_loopback: bool) -> str | None:
    """Why a webhook may not be called: its host resolves to a private, loopback, link-local (the instance
    metadata service at 169.254.169.254) or otherwise non-public address. Loopback passes where allowed."""
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if ip.is_loopback and allow_loopback:
            continue
        if not ip.is_global:
            return f"Webhook {url} resolves to {address}, which is not a public address; it is not called."
    return None
