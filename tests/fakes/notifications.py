"""The notifications table in memory: the NotificationDocs port (adapters.store.notifications)."""

from __future__ import annotations

import json
from typing import Any


class NotificationDocs:
    """The notifications table: subscribers per cluster (versioned) and the keys of sent notifications."""

    def __init__(self) -> None:
        self.docs: dict[str, tuple[list[dict[str, Any]], int]] = {}
        self.sent: set[str] = set()

    def subscribers(self, cluster: str) -> tuple[list[dict[str, Any]], int]:
        subs, version = self.docs.get(cluster, ([], 0))
        return json.loads(json.dumps(subs)), version

    def put_subscribers(self, cluster: str, subscribers: list[dict[str, Any]], version: int) -> bool:
        if self.docs.get(cluster, ([], 0))[1] != version:
            return False
        self.docs[cluster] = (subscribers, version + 1)
        return True

    def claim(self, key: str) -> bool:
        if key in self.sent:
            return False
        self.sent.add(key)
        return True

    def release(self, key: str) -> None:
        self.sent.discard(key)
