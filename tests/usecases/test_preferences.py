"""The caller's active cluster: only a cluster Launchpod knows can be chosen (in a dry run too), clearing it is
allowed, and the same choice again is NOOP while a dry run answers the change; neither writes."""

from __future__ import annotations

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain.errors import NotFound
from launchpod.domain.operations import Principal
from launchpod.usecases import preferences

from tests.fakes.clusters import Clusters
from tests.fakes.preferences import Preferences

ALICE = Principal("alice", Role.OPERATOR)


def _ports() -> preferences.PreferencePorts:
    return preferences.PreferencePorts(
        preferences=Preferences(), clusters=Clusters({"train": {"name": "train"}, "infer": {"name": "infer"}})
    )


def test_me_names_the_subject_and_role() -> None:
    assert preferences.me(ALICE).model_dump(mode="json") == {"subject": "alice", "role": "operator"}


def test_a_known_cluster_becomes_the_active_one_and_reads_back() -> None:
    ports = _ports()
    assert preferences.set_active_cluster(ALICE, "train", False, ports=ports).activeCluster == "train"
    assert preferences.preferences_of(ALICE, ports=ports).activeCluster == "train"


def test_an_unknown_cluster_is_refused_with_what_to_do_and_nothing_is_saved() -> None:
    ports = _ports()
    with pytest.raises(NotFound) as refused:
        preferences.set_active_cluster(ALICE, "other", False, ports=ports)
    assert str(refused.value) == "Cluster other is not known to Launchpod; create or import it first."
    assert preferences.preferences_of(ALICE, ports=ports).activeCluster is None


def test_clearing_the_active_cluster_needs_no_cluster() -> None:
    ports = _ports()
    preferences.set_active_cluster(ALICE, "train", False, ports=ports)
    assert preferences.set_active_cluster(ALICE, None, False, ports=ports).activeCluster is None


def test_the_active_cluster_again_is_noop_and_writes_nothing() -> None:
    ports = _ports()
    assert preferences.set_active_cluster(ALICE, None, False, ports=ports) == NoopView(
        message="You have no active cluster already; no changes."
    )
    preferences.set_active_cluster(ALICE, "train", False, ports=ports)
    again = preferences.set_active_cluster(ALICE, "train", False, ports=ports)
    assert again == NoopView(message="train is already your active cluster; no changes.")
    assert ports.preferences.writes == 1  # type: ignore[attr-defined]


def test_a_dry_run_answers_the_change_and_keeps_the_active_cluster() -> None:
    ports = _ports()
    preferences.set_active_cluster(ALICE, "train", False, ports=ports)
    planned = preferences.set_active_cluster(ALICE, "infer", True, ports=ports)
    assert isinstance(planned, PlanView)
    assert [(s.action, s.target, s.reason) for s in planned.steps] == [
        ("update", "activeCluster of alice", "activeCluster is train; the request makes it infer")
    ]
    cleared = preferences.set_active_cluster(ALICE, None, True, ports=ports)
    assert isinstance(cleared, PlanView) and cleared.steps[0].reason == "activeCluster is train; the request clears it"
    assert preferences.preferences_of(ALICE, ports=ports).activeCluster == "train"
    with pytest.raises(NotFound):  # a dry run runs every check
        preferences.set_active_cluster(ALICE, "other", True, ports=ports)
