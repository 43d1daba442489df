"""EC2's eventual consistency: an id just created can be "not found" for a moment.

AWS, "Eventual consistency in the Amazon EC2 API" (EC2 developer guide): "if you run a command to modify
or describe the resource that you just created, its ID might not have propagated throughout the system,
and you will get an error responding that the resource does not exist" — retry with exponential backoff.

Only ids this client created itself are retried, so a wrong id a user typed still fails at once: the
client records the ids in every Create*/Allocate* answer and, when a later call that names one of them
is answered ``Invalid….NotFound``, botocore retries it (its ``needs-retry`` hook) with backoff. A tail
longer than this budget surfaces as the NotFound error and the phase's own Retry takes over.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

FIRST_DELAY = 0.1  # seconds; doubled per attempt
MAX_ATTEMPTS = 7  # 0.1 + 0.2 + … + 3.2 ≈ 6.3 s in all
REMEMBER_SECONDS = 900.0

_ID = re.compile(r"^(?:vpc|subnet|igw|nat|rtb|sg|eipalloc|acl|eni|vpce)-[0-9a-f]{8,17}$")
_CLEANUP = ("Delete", "Release", "Detach", "Disassociate", "Revoke")


def _ids_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if _ID.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(_ids_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_ids_in(v) for v in value)) if value else set()
    return set()


class FreshIds:
    """The ids one EC2 client created, and the retry of calls that name them too early."""

    def __init__(self) -> None:
        self._created: dict[str, float] = {}
        self._lock = threading.Lock()

    def is_fresh(self, resource_id: str) -> bool:
        with self._lock:
            created = self._created.get(resource_id)
        return created is not None and time.monotonic() - created < REMEMBER_SECONDS

    def after_call(self, parsed: Any = None, model: Any = None, **_: Any) -> None:
        if model is None or not model.name.startswith(("Create", "Allocate")) or not isinstance(parsed, dict):
            return
        if "Error" in parsed:
            return
        now = time.monotonic()
        with self._lock:
            for stale in [k for k, t in self._created.items() if now - t >= REMEMBER_SECONDS]:
                del self._created[stale]
            for resource_id in _ids_in({k: v for k, v in parsed.items() if k != "ResponseMetadata"}):
                self._created.setdefault(resource_id, now)

    def needs_retry(
        self, response: Any = None, operation: Any = None, attempts: int = 1, request_dict: Any = None, **_: Any
    ) -> float | None:
        if response is None or operation is None or operation.name.startswith(_CLEANUP):
            return None
        code = str((response[1] or {}).get("Error", {}).get("Code", ""))
        if not code.endswith(".NotFound") or attempts >= MAX_ATTEMPTS:
            return None
        named = _ids_in((request_dict or {}).get("body") or {})
        if not any(self.is_fresh(resource_id) for resource_id in named):
            return None
        return float(FIRST_DELAY * 2 ** (attempts - 1))


def retry_fresh_ids(ec2_client: Any) -> FreshIds:
    """Attach the retry to an EC2 client once (clients are cached per container)."""
    existing = getattr(ec2_client, "_launchpod_fresh_ids", None)
    if existing is not None:
        return existing  # type: ignore[no-any-return]
    fresh = FreshIds()
    events = ec2_client.meta.events
    events.register("after-call.ec2", fresh.after_call, unique_id="launchpod-fresh-ids-after")
    events.register_first("needs-retry.ec2", fresh.needs_retry, unique_id="launchpod-fresh-ids-retry")
    ec2_client._launchpod_fresh_ids = fresh
    return fresh
