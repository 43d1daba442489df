"""How long HyperPod's transitions take in simulated seconds, and the HyperPod clock (``sim_now``), which
integrates the time scale piecewise so it never runs backwards."""

from __future__ import annotations

import threading
import time

from sandbox.aws import clock

#: Simulated seconds each transition takes (``set_durations`` changes them).
DEFAULT_DURATIONS: dict[str, float] = {
    "cluster_create": 900.0,  # a new cluster's instances: Pending -> Running
    "scale_up": 600.0,  # instances added by UpdateCluster
    "deep_health_check": 600.0,  # DeepHealthCheckInProgress, when OnStartDeepHealthChecks is set
    # AWS's figures for HyperPod node recovery: a reboot takes about 1-3 minutes, a replacement about 20-30
    # (the nodes issue quotes them; "Manually quarantine, replace, or reboot a node" gives no number).
    "reboot": 120.0,
    "replace": 1500.0,
    "software_update": 600.0,  # one rolling batch of UpdateClusterSoftware
    "group_delete": 300.0,
    "cluster_delete": 300.0,
    "auto_recovery": 300.0,  # NodeRecovery=Automatic: a failed instance is replaced after this
}
DURATIONS = dict(DEFAULT_DURATIONS)


def set_cluster_creation_seconds(sim_seconds: float) -> None:
    """How long a new cluster's instances take to come up, in simulated seconds (default 900)."""
    set_durations(cluster_create=sim_seconds)


def set_durations(**sim_seconds: float) -> None:
    """Change transition durations (simulated seconds); keys are those of ``DEFAULT_DURATIONS``."""
    unknown = set(sim_seconds) - set(DEFAULT_DURATIONS)
    if unknown:
        raise ValueError(f"unknown durations {sorted(unknown)}; known: {sorted(DEFAULT_DURATIONS)}")
    for key, value in sim_seconds.items():
        if value < 0:
            raise ValueError(f"{key} must be >= 0, got {value!r}")
        DURATIONS[key] = float(value)


def describe_durations() -> dict[str, float]:
    """The current transition durations in simulated seconds."""
    return dict(DURATIONS)


def reset_durations() -> None:
    """Put every duration back to ``DEFAULT_DURATIONS``."""
    DURATIONS.update(DEFAULT_DURATIONS)


_sim_lock = threading.Lock()
_sim_clock = {"sim": 0.0, "real": time.monotonic()}


def sim_now() -> float:
    """Simulated seconds since import, integrated over time-scale changes so it never runs backwards.

    ``clock.sim_seconds_elapsed`` divides a whole real interval by the *current* scale, so speeding the
    clock up mid-test would send a Running instance back to Pending; integrating piecewise avoids that.
    """
    with _sim_lock:
        now = time.monotonic()
        _sim_clock["sim"] += (now - _sim_clock["real"]) / clock.get_time_scale()
        _sim_clock["real"] = now
        return _sim_clock["sim"]
