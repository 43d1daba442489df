"""Telling people from the handlers that see things happen (RecordFailure, the remediation ladder): the
deployed ports around usecases.notifications.tell, which logs a notification that cannot be sent and never
fails the handler's own work."""

from __future__ import annotations

from launchpod.usecases import notifications


def tell(cluster: str, kind: str, key: str, subject: str, text: str, path: str) -> bool:
    """Once per ``key`` and ``kind``; True when it was published now."""
    return notifications.tell(cluster, kind, key, subject, text, path, ports=notifications.real())
