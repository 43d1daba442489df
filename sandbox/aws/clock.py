"""Simulated time for the sandbox's AWS emulation.

The sandbox compresses AWS durations (an EKS control plane takes ~10 minutes, an add-on ~1 minute, a
Step Functions Wait whatever the ASL says) by one process-wide ``time_scale``: a simulated second lasts
``time_scale`` real seconds. Everything in ``sandbox.aws`` that waits or schedules a transition reads
the scale from here, so ``install(time_scale=...)`` can change it at any time and every later
computation follows.
"""

from __future__ import annotations

import threading
import time

_lock = threading.Lock()
_time_scale = 1.0


def set_time_scale(time_scale: float) -> None:
    """Set the process-wide scale (real seconds per simulated second); must be > 0."""
    global _time_scale
    if not time_scale > 0:
        raise ValueError(f"time_scale must be > 0, got {time_scale!r}")
    with _lock:
        _time_scale = float(time_scale)


def get_time_scale() -> float:
    """Real seconds per simulated second (1.0 = real time, 0.01 = a minute lasts 0.6 s)."""
    return _time_scale


def real_seconds(sim_seconds: float) -> float:
    """How many real seconds ``sim_seconds`` simulated seconds last at the current scale."""
    return sim_seconds * _time_scale


def sim_seconds_elapsed(start_monotonic: float) -> float:
    """Simulated seconds since ``start_monotonic`` (a ``time.monotonic()`` reading)."""
    return (time.monotonic() - start_monotonic) / _time_scale
