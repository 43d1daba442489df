"""How long EKS's transitions take in simulated seconds, registered as moto ManagedState time transitions
(models ``eks::cluster`` and ``eks::addon``) at the current time scale."""

from __future__ import annotations

from moto.moto_api import state_manager

from sandbox.aws import clock

CLUSTER_MODEL = "eks::cluster"
ADDON_MODEL = "eks::addon"

DURATIONS = {"cluster_create": 600.0, "cluster_delete": 120.0, "addon": 60.0, "addon_delete": 30.0}


def set_cluster_creation_seconds(sim_seconds: float) -> None:
    """How long a new cluster stays CREATING, in simulated seconds (default 600)."""
    DURATIONS["cluster_create"] = float(sim_seconds)
    register_transitions()


def set_cluster_deletion_seconds(sim_seconds: float) -> None:
    """How long a deleted cluster stays DELETING before it is gone, in simulated seconds (default 120)."""
    DURATIONS["cluster_delete"] = float(sim_seconds)


def set_addon_transition_seconds(sim_seconds: float) -> None:
    """How long an add-on stays CREATING or UPDATING, in simulated seconds (default 60)."""
    DURATIONS["addon"] = float(sim_seconds)
    register_transitions()


def register_transitions() -> None:
    """(Re)register the time-based defaults at the current time scale; user overrides still win."""
    state_manager.register_default_transition(
        CLUSTER_MODEL, {"progression": "time", "seconds": clock.real_seconds(DURATIONS["cluster_create"])}
    )
    state_manager.register_default_transition(
        ADDON_MODEL, {"progression": "time", "seconds": clock.real_seconds(DURATIONS["addon"])}
    )
