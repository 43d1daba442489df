"""Simulated time for the sandbox's AWS emulation.

The sandbox compresses AWS durations (an EKS control plane takes ~10 minutes, an add-on ~1 minute, a
Step Functions Wait whatever the ASL says) by one ``time_scale`` (held in ``sandbox.aws.state.STATE.clock``):
a simulated second lasts ``time_scale`` real seconds. Everything in ``sandbox.aws`` that waits or
schedules a transition reads the scale from here, so ``install(time_scale=...)`` can change it at any time
and every later computation follows.
"""

from __future__ import annotations

import time

from sandbox.aws.state import STATE


def set_time_scale(time_scale: float) -> None:
    """Set the process-wide scale (real seconds per simulated second); must be > 0."""
    if not time_scale > 0:
        raise ValueError(f"time_scale must be > 0, got {time_scale!r}")
    STATE.clock.time_scale = float(time_scale)


def get_time_scale() -> float:
    """Real seconds per simulated second (1.0 = real time, 0.01 = a minute lasts 0.6 s)."""
    return STATE.clock.time_scale


def real_seconds(sim_seconds: float) -> float:
    """How many real seconds ``sim_seconds`` simulated seconds last at the current scale."""
    return sim_seconds * STATE.clock.time_scale


def sim_seconds_elapsed(start_monotonic: float) -> float:
    """Simulated seconds since ``start_monotonic`` (a ``time.monotonic()`` reading)."""
    return (time.monotonic() - start_monotonic) / STATE.clock.time_scale
