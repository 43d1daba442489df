"""What GET /api/health answers: the API runs, and which version of Launchpod it is (runtime.settings)."""

from __future__ import annotations

from launchpod.contracts.health import HealthView
from launchpod.runtime.settings import settings


def health() -> HealthView:
    return HealthView(version=settings().version)
