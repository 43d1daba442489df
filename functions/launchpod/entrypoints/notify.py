"""Telling people from the handlers that see things happen (RecordFailure, the remediation ladder, the
cluster-event handler): a notification that cannot be sent is logged, never fails the handler's own work."""

from __future__ import annotations

from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints.observability import logger
from launchpod.usecases import notifications


def tell(cluster: str, kind: str, key: str, subject: str, text: str, path: str) -> bool:
    """Once per ``key`` and ``kind``; True when it was published now."""
    try:
        return notifications.notify(cluster, kind, key, subject, text, path, ports=notifications.real())
    except LaunchpodError as exc:
        logger.warning("notification not sent", extra={"cluster": cluster, "kind": kind, "error": exc.message})
        return False
