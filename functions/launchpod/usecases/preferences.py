"""Each caller's preferences (the active cluster, shared by the console and their agents), and who they are.
A change is planned against the stored preference first: NOOP when equal, the plan on a dry run."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.preferences import MeView, PreferencesView
from launchpod.domain.errors import NotFound
from launchpod.domain.operations import Principal
from launchpod.domain.plan import Field, Step, diff
from launchpod.domain.preferences import CallerPreferences
from launchpod.runtime import wiring
from launchpod.usecases.ports import ClusterRecords, Preferences
from launchpod.usecases.proposal import at_once


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


def _view(found: CallerPreferences) -> PreferencesView:
    return PreferencesView(subject=found.subject, activeCluster=found.active_cluster)


def preferences_of(who: Principal, *, ports: PreferencePorts) -> PreferencesView:
    return _view(ports.preferences.get(who.subject))


def set_active_cluster(
    who: Principal, cluster: str | None, dry_run: bool, *, ports: PreferencePorts
) -> PreferencesView | NoopView | PlanView:
    """Only a cluster Launchpod knows can be the active one (404 saying how to make it known otherwise);
    NOOP when it already is the active one (or, for null, none is), the plan on a dry run."""
    if cluster and ports.clusters.get(cluster) is None:
        raise NotFound(f"Cluster {cluster} is not known to Launchpod; create or import it first.")
    target = f"preferences of {who.subject}"

    def step(want: str | None, have: str | None) -> Step:
        said = f"the request makes it {want}" if want else "the request clears it"
        return Step("update", f"activeCluster of {who.subject}", f"activeCluster is {have or 'not set'}; {said}")

    real = {"activeCluster": ports.preferences.get(who.subject).active_cluster}
    field_ = Field("activeCluster", mutable=True, step=step)
    # Everyone has preferences (unset reads as none), so there is nothing to create.
    plan = diff(target, {"activeCluster": cluster}, real, [field_], resource=target, create=tuple)
    noop = f"{cluster} is already your active cluster" if cluster else "You have no active cluster already"
    return at_once(
        plan,
        dry_run,
        f"{noop}; no changes.",
        lambda: _view(ports.preferences.set_active_cluster(who.subject, cluster)),
    )
