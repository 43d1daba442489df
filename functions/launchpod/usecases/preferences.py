"""Each caller's preferences (the active cluster, shared by the console and their agents), and who they are."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.preferences import MeView, PreferencesView
from launchpod.domain.errors import NotFound
from launchpod.domain.operations import Principal
from launchpod.runtime import wiring
from launchpod.usecases.ports import ClusterRecords, Preferences


@dataclass(frozen=True)
class PreferencePorts:
    preferences: Preferences
    clusters: ClusterRecords


def real() -> PreferencePorts:
    """The deployed adapters (runtime.wiring)."""
    return PreferencePorts(preferences=wiring.preferences(), clusters=wiring.clusters())


def me(who: Principal) -> MeView:
    """The caller as the token names them, with their Launchpod role."""
    return MeView(subject=who.subject, role=who.role)


def preferences_of(who: Principal, *, ports: PreferencePorts) -> PreferencesView:
    return PreferencesView(**ports.preferences.get(who.subject))


def set_active_cluster(who: Principal, cluster: str | None, *, ports: PreferencePorts) -> PreferencesView:
    """Only a cluster Launchpod knows can be the active one (404 saying how to make it known otherwise)."""
    if cluster and ports.clusters.get(cluster) is None:
        raise NotFound(f"Cluster {cluster} is not known to Launchpod; create or import it first.")
    return PreferencesView(**ports.preferences.set_active_cluster(who.subject, cluster))
