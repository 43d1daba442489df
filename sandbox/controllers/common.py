"""What the controllers share beyond their loop (``periodic``): the timestamps they write.

Kubernetes writes times (``creationTimestamp``, ``startedAt``, ``lastTransitionTime``, an Event's
``lastTimestamp``) as RFC 3339 in UTC with whole seconds (Kubernetes API conventions, "Times").
"""

from __future__ import annotations

import datetime


def timestamp() -> str:
    """Now, as the API server and the kubelet write it: ``2026-12-05T14:30:00Z``."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
