"""Chat webhooks in memory: the Webhooks port (adapters.webhooks)."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from launchpod.domain.errors import RetryableError


class Webhooks:
    """The webhooks that listen (URL -> the HTTP status they answer) and what hosts resolve to (an IP literal is
    itself, as getaddrinfo answers; any other unknown host does not resolve: OSError). ``posted`` is (URL, body)
    of each delivered post; a URL nobody listens at is unreachable (RetryableError)."""

    def __init__(self, listening: dict[str, int] | None = None, hosts: dict[str, list[str]] | None = None) -> None:
        self.listening, self.hosts = listening or {}, hosts or {}
        self.posted: list[tuple[str, dict[str, Any]]] = []

    def addresses(self, url: str) -> list[str]:
        host = urlsplit(url).hostname or ""
        if host in self.hosts:
            return sorted(set(self.hosts[host]))
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            raise OSError(f"[Errno -2] Name or service not known: {host!r}") from None

    def post_json(self, url: str, body: dict[str, Any]) -> int:
        if url not in self.listening:
            raise RetryableError(f"Webhook {url} is unreachable: nothing listens there")
        self.posted.append((url, body))
        return self.listening[url]
