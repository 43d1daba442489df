"""The caller's active cluster: only a cluster Launchpod knows can be chosen, and clearing it is allowed."""

from __future__ import annotations

import pytest
from launchpod.contracts.common import Role
from launchpod.domain.errors import NotFound
from launchpod.domain.operations import Principal
from launchpod.usecases import preferences

from tests.usecases.fakes import PreferenceTable, Records

ALICE = Principal("alice", Role.OPERATOR)


def _ports() -> preferences.PreferencePorts:
    return preferences.PreferencePorts(preferences=PreferenceTable(), clusters=Records({"train": {"name": "train"}}))


def test_me_names_the_subject_and_role() -> None:
    assert preferences.me(ALICE).model_dump(mode="json") == {"subject": "alice", "role": "operator"}


def test_a_known_cluster_becomes_the_active_one_and_reads_back() -> None:
    ports = _ports()
    assert preferences.set_active_cluster(ALICE, "train", ports=ports).activeCluster == "train"
    assert preferences.preferences_of(ALICE, ports=ports).activeCluster == "train"


def test_an_unknown_cluster_is_refused_with_what_to_do_and_nothing_is_saved() -> None:
    ports = _ports()
    with pytest.raises(NotFound) as refused:
        preferences.set_active_cluster(ALICE, "other", ports=ports)
    assert str(refused.value) == "Cluster other is not known to Launchpod; create or import it first."
    assert preferences.preferences_of(ALICE, ports=ports).activeCluster is None


def test_clearing_the_active_cluster_needs_no_cluster() -> None:
    ports = _ports()
    preferences.set_active_cluster(ALICE, "train", ports=ports)
    assert preferences.set_active_cluster(ALICE, None, ports=ports).activeCluster is None
