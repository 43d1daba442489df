"""How long EKS's transitions take in simulated seconds, registered as moto ManagedState time transitions
(models ``eks::cluster`` and ``eks::addon``) at the current time scale.

An add-on's rollout (CREATING or UPDATING until ACTIVE) is not one fixed time: each add-on takes a time
within ``ADDON_ROLLOUT_SECONDS``, drawn deterministically from its cluster's and its own name (the same
cluster and add-on always take the same time, different ones spread over the range). The range:
- fast end, 20 s: observed, "each time addon was created under 20 seconds" once the cluster's add-on
  API was ready (https://github.com/terraform-aws-modules/terraform-aws-eks/pull/3214);
- slow end, 600 s: AWS's own bound, the AddonActive waiter of the EKS API model (botocore
  ``eks/2017-11-01/waiters-2.json``: 60 attempts 10 s apart), which ``aws eks wait addon-active`` uses.
  Slower creations are reported (vpc-cni "can take up to 20 minutes" right after the cluster turns
  ACTIVE, the same pull request) and are not modelled.
Launchpod's waits on add-ons (20 minutes of polls) must hold at the slow end; a test checks it.
``set_addon_transition_seconds`` fixes one time for every add-on (tests that need a short or exact one).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from moto.moto_api import state_manager

from sandbox.aws import clock
from sandbox.aws.state import STATE

CLUSTER_MODEL = "eks::cluster"
ADDON_MODEL = "eks::addon"

ADDON_ROLLOUT_SECONDS = (20.0, 600.0)


@dataclass
class EksDurations:
    """EKS's transition times in simulated seconds; ``addon``: None = each add-on's own time within
    ``ADDON_ROLLOUT_SECONDS``, a number fixes it for all."""

    seconds: dict[str, float | None] = field(
        default_factory=lambda: {"cluster_create": 600.0, "cluster_delete": 120.0, "addon": None, "addon_delete": 30.0}
    )


def durations() -> dict[str, float | None]:
    """The transition times in force (``set_*_seconds`` change them)."""
    return STATE.of(EksDurations).seconds


def set_cluster_creation_seconds(sim_seconds: float) -> None:
    """How long a new cluster stays CREATING, in simulated seconds (default 600)."""
    durations()["cluster_create"] = float(sim_seconds)
    register_transitions()


def set_cluster_deletion_seconds(sim_seconds: float) -> None:
    """How long a deleted cluster stays DELETING before it is gone, in simulated seconds (default 120)."""
    durations()["cluster_delete"] = float(sim_seconds)


def set_addon_transition_seconds(sim_seconds: float | None) -> None:
    """How long every add-on stays CREATING or UPDATING, in simulated seconds; None: each add-on's own
    time within ``ADDON_ROLLOUT_SECONDS`` (the default)."""
    durations()["addon"] = None if sim_seconds is None else float(sim_seconds)
    register_transitions()


def addon_rollout_seconds(cluster: str, addon: str) -> float:
    """Simulated seconds add-on ``addon`` of ``cluster`` takes to roll out."""
    fixed = durations()["addon"]
    if fixed is not None:
        return fixed
    low, high = ADDON_ROLLOUT_SECONDS
    fraction = int.from_bytes(hashlib.sha256(f"{cluster}/{addon}".encode()).digest()[:8], "big") / 2**64
    return low + (high - low) * fraction


def register_transitions() -> None:
    """(Re)register the time-based defaults at the current time scale; user overrides still win. The add-on
    model's seconds are the fixed time when one is set; otherwise each add-on uses its own."""
    cluster_create = durations()["cluster_create"]
    assert cluster_create is not None
    state_manager.register_default_transition(
        CLUSTER_MODEL, {"progression": "time", "seconds": clock.real_seconds(cluster_create)}
    )
    addon = durations()["addon"]
    seconds = addon if addon is not None else ADDON_ROLLOUT_SECONDS[0]
    state_manager.register_default_transition(
        ADDON_MODEL, {"progression": "time", "seconds": clock.real_seconds(seconds)}
    )
