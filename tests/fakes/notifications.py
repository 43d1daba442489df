"""The notifications table in memory: the NotificationDocs port (adapters.store.notifications); subscribers are
kept as the adapter's entries and read back through its builders."""

from __future__ import annotations

import json
from typing import Any

from launchpod.adapters.store.notifications import subscriber_entry, subscriber_of
from launchpod.domain.notifications import Subscriber


class NotificationDocs:
    """The notifications table: subscribers per cluster (versioned) and the keys of sent notifications."""

    def __init__(self) -> None:
        self.docs: dict[str, tuple[str, int]] = {}  # cluster -> its entries as stored JSON, and the version
        self.sent: set[str] = set()

    def subscribers(self, cluster: str) -> tuple[list[Subscriber], int]:
        entries, version = self.docs.get(cluster, ("[]", 0))
        stored: list[dict[str, Any]] = json.loads(entries)
        return [subscriber_of(s) for s in stored], version

    def put_subscribers(self, cluster: str, subscribers: list[Subscriber], version: int) -> bool:
        if self.docs.get(cluster, ("[]", 0))[1] != version:
            return False
        self.docs[cluster] = (json.dumps([subscriber_entry(s) for s in subscribers]), version + 1)
        return True

    def claim(self, key: str) -> bool:
        if key in self.sent:
            return False
        self.sent.add(key)
        return True

    def release(self, key: str) -> None:
        self.sent.discard(key)
