"""Chat webhooks (Slack, Teams, any incoming webhook): where a URL resolves, and a JSON body posted to it
(https://api.slack.com/messaging/webhooks). Whether a URL may be called at all is the domain's rule
(launchpod.domain.notifications); this module only talks to the network."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit

import urllib3

from launchpod.domain.errors import RetryableError

_HTTP = urllib3.PoolManager(timeout=urllib3.Timeout(connect=3, read=5), retries=urllib3.Retry(total=2))


def addresses(url: str) -> list[str]:
    """The addresses the URL's host resolves to; OSError when it does not resolve."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(parts.hostname or "", port)})


def post_json(url: str, body: dict[str, Any]) -> int:
    """The HTTP status the webhook answered; RetryableError when it could not be reached."""
    try:
        reply = _HTTP.request("POST", url, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    except urllib3.exceptions.HTTPError as exc:
        raise RetryableError(f"Webhook {url} is unreachable: {exc}") from exc
    return int(reply.status)
