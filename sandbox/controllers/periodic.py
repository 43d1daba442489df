"""A daemon thread that calls one function every ``interval`` real seconds until stopped: what the
sandbox runs where AWS moves on by itself (HyperPod's clock, Kubernetes controllers)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Periodic:
    def __init__(self, name: str, interval: float, tick: Callable[[], None]) -> None:
        self.interval, self.tick = interval, tick
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Periodic:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
                log.debug("%s tick failed", self._thread.name, exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)
