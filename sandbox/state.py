"""What the sandbox remembers between calls outside moto's backends, in one object.

moto keeps every service's state in one registry of backends; the sandbox's own pieces (the controllers'
memory of each job, pod and node, the gateway's live WebSocket connections, the API servers' log
sinks) do the same here: each module declares a dataclass of what it keeps and asks ``STATE.part``
for the one instance, instead of holding module globals. ``STATE.reset()`` forgets all of it.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

T = TypeVar("T")


class SandboxState:
    """One instance per part type, made on first use (every method is safe from any thread)."""

    def __init__(self) -> None:
        self._parts: dict[type[Any], Any] = {}
        self._lock = threading.Lock()

    def part(self, kind: type[T]) -> T:
        """The one ``kind()`` of this process: a dataclass whose fields all have defaults."""
        with self._lock:
            found = self._parts.get(kind)
            if found is None:
                found = self._parts[kind] = kind()
            return found

    def reset(self) -> None:
        """Forget every part; the next ``part`` call makes a fresh one."""
        with self._lock:
            self._parts.clear()


STATE = SandboxState()
