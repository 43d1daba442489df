"""Each caller's preferences in memory: the Preferences port (adapters.store.preferences)."""

from __future__ import annotations

from typing import Any


class Preferences:
    """Each caller's preferences by subject."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}
        self.writes = 0

    def get(self, subject: str) -> dict[str, Any]:
        return self.items.get(subject, {"subject": subject})

    def set_active_cluster(self, subject: str, cluster: str | None) -> dict[str, Any]:
        self.writes += 1
        self.items[subject] = {"subject": subject, "activeCluster": cluster}
        return self.items[subject]
