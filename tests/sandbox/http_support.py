"""One TLS context for every test's HTTP client. httpx builds a new one per client otherwise, loading certifi's CA
bundle (about 20 ms of CPU each), and the end-to-end tests make thousands of clients, many inside polling loops."""

from __future__ import annotations

import httpx

TLS = httpx.create_ssl_context()
