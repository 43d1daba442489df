"""A caller's preferences as Launchpod reads them: the active cluster the console and their agents share.

The Preferences port (adapters.store.preferences) builds it from the caller's DynamoDB item; a caller with no
item has none set."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CallerPreferences:
    subject: str  # the authenticated subject the item is keyed by
    active_cluster: str | None = None
