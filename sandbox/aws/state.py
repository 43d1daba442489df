"""The sandbox's AWS state in one place: what the emulated services hold beyond moto's backends.

moto keeps each service's resources in its backends (``moto.<service>.models.<service>_backends``); what
the sandbox adds (HyperPod's transition times and sinks, the node faults injected, MLflow tracking servers,
EC2 ids still propagating, SNS deliveries, the Lambda runner...) is one dataclass per service, defined in
that service's package, and held here: ``STATE.of(HyperPodState)`` answers the one instance, made with its
defaults the first time it is asked for. ``reset()`` (``sandbox.aws.reset``) drops every service's state,
so the next look starts from the defaults; the simulated clock is not part of it (``STATE.clock``: it
never runs backwards). Nothing else in ``sandbox.aws`` keeps mutable module globals but the install-once
flags of the moto patches, which are per process as the patched moto classes are.

One ``AwsState`` is the process's today; nothing here assumes there is only one.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class Clock:
    """The simulated clock: ``time_scale`` real seconds per simulated second, and the HyperPod clock's
    integral (simulated seconds at the real ``time.monotonic()`` reading ``real``)."""

    time_scale: float = 1.0
    sim: float = 0.0
    real: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class AwsState:
    """Each service's state, made on first use; ``reset`` drops them all (not the clock)."""

    def __init__(self) -> None:
        self.clock = Clock()
        self._lock = threading.Lock()
        self._services: dict[type, object] = {}

    def of(self, kind: type[T]) -> T:
        """The state of type ``kind`` (made with its defaults the first time, or after ``reset``)."""
        found = self._services.get(kind)
        if not isinstance(found, kind):
            with self._lock:
                found = self._services.get(kind)
                if not isinstance(found, kind):
                    found = kind()
                    self._services[kind] = found
        return found

    def services(self) -> list[object]:
        """The services' states made so far."""
        with self._lock:
            return list(self._services.values())

    def reset(self) -> None:
        with self._lock:
            self._services.clear()


STATE = AwsState()


def reset() -> None:
    """Every service's state back to its defaults (the clock keeps running)."""
    STATE.reset()
