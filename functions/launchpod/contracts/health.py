"""What GET /api/health answers, in a module of its own: the API's cold start imports the catalog's other
contracts only when a route that uses them is first called (entrypoints/api/lazy_routes.py)."""

from __future__ import annotations

from launchpod.contracts.common import Contract


class HealthView(Contract):
    status: str = "ok"
    version: str
