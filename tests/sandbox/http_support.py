"""One TLS context for every test's HTTP client. httpx builds a new one per client otherwise, loading certifi's CA
bundle (about 20 ms of CPU each), and the end-to-end tests make thousands of clients, many inside polling loops."""

from __future__ import annotations

import httpx

TLS = httpx.create_ssl_context()


def next_step(refused: httpx.Response) -> str | None:
    """The call an error names as its fix (a detail for the CLI and agents; the message says it in words)."""
    return next((d["message"] for d in refused.json()["details"] if d["rule"] == "next_step"), None)
