"""How long HyperPod's transitions take in simulated seconds, and the HyperPod clock (``sim_now``), which
integrates the time scale piecewise so it never runs backwards."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sandbox.aws import clock
from sandbox.aws.state import STATE

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
    # MoveClusterNodes: DetachInProgress, then AttachInProgress (new EBS volumes, the target's lifecycle
    # scripts); AWS gives no figure, only that a move is "much less time" than a new instance.
    "move_detach": 120.0,
    "move_attach": 300.0,
}


@dataclass
class HyperPodDurations:
    """HyperPod's transition times now (simulated seconds, keys of ``DEFAULT_DURATIONS``)."""

    seconds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_DURATIONS))


def durations() -> dict[str, float]:
    """The transition durations in force (simulated seconds); ``set_durations`` changes them."""
    return STATE.of(HyperPodDurations).seconds


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
        durations()[key] = float(value)


def describe_durations() -> dict[str, float]:
    """The current transition durations in simulated seconds."""
    return dict(durations())


def reset_durations() -> None:
    """Put every duration back to ``DEFAULT_DURATIONS``."""
    durations().update(DEFAULT_DURATIONS)


def sim_now() -> float:
    """Simulated seconds since the clock started, integrated over time-scale changes so it never runs backwards.

    ``clock.sim_seconds_elapsed`` divides a whole real interval by the *current* scale, so speeding the
    clock up mid-test would send a Running instance back to Pending; integrating piecewise avoids that.
    """
    sim = STATE.clock
    with sim.lock:
        now = time.monotonic()
        sim.sim += (now - sim.real) / clock.get_time_scale()
        sim.real = now
        return sim.sim
