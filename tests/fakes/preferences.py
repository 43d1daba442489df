"""Each caller's preferences in memory: the Preferences port (adapters.store.preferences)."""

from __future__ import annotations

from launchpod.domain.preferences import CallerPreferences


class Preferences:
    """Each caller's preferences by subject; a caller never written has none set."""

    def __init__(self) -> None:
        self.items: dict[str, CallerPreferences] = {}
        self.writes = 0

    def get(self, subject: str) -> CallerPreferences:
        return self.items.get(subject, CallerPreferences(subject))

    def set_active_cluster(self, subject: str, cluster: str | None) -> CallerPreferences:
        self.writes += 1
        self.items[subject] = CallerPreferences(subject, cluster)
        return self.items[subject]
