"""Launchpod itself and the caller: liveness, who you are, your preferences."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, NoInput
from launchpod.contracts.common import Role
from launchpod.contracts.health import HealthView
from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry("health", "GET", "/api/health", "Liveness of the API.", NoInput, HealthView, None, tags=("meta",)),
    CatalogEntry(
        "get_me",
        "GET",
        "/api/me",
        "Who you are to Launchpod: your user and the role (viewer, operator, admin) your groups give you.",
        NoInput,
        MeView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "get_preferences",
        "GET",
        "/api/preferences",
        "Get your preferences: the active cluster you and your agents work on by default.",
        NoInput,
        PreferencesView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "set_preferences",
        "PUT",
        "/api/preferences",
        "Set your active cluster (a preference, effective at once; it changes nothing in AWS). NOOP when it"
        " already is your active cluster; dryRun true answers the plan.",
        UpdatePreferencesRequest,
        PreferencesView,
        Role.VIEWER,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("preferences",),
    ),
)
