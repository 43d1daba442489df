"""The versioned documents' contract: the in-memory fakes (tests/fakes/incidents.py, preferences.py) and
DynamoIncidents / DynamoPreferences on the sandbox's DynamoDB answer each case alike: nothing stored yet, a
write over the version read and one over a stale version, the incidents kept, a caller's preferences."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.adapters.store.incidents import KEEP, DynamoIncidents
from launchpod.adapters.store.preferences import DynamoPreferences
from launchpod.domain.preferences import CallerPreferences
from launchpod.usecases.ports import IncidentDocs, Preferences

from tests.fakes import incidents, preferences


@pytest.fixture(params=["fake", "dynamodb"])
def docs(request: pytest.FixtureRequest) -> IncidentDocs:
    if request.param == "fake":
        return incidents.IncidentDocs()
    return DynamoIncidents(request.getfixturevalue("tables")["incidents"])


@pytest.fixture(params=["fake", "dynamodb"])
def prefs(request: pytest.FixtureRequest) -> Preferences:
    if request.param == "fake":
        return preferences.Preferences()
    return DynamoPreferences(request.getfixturevalue("tables")["preferences"])


def _incident(number: int) -> dict[str, Any]:
    return {"id": f"inc-{number:04d}", "openedAt": f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z"}


def test_a_cluster_with_nothing_stored_reads_an_empty_document_at_version_0(docs: IncidentDocs) -> None:
    assert docs.get("c1") == ({"policy": None, "incidents": []}, 0)


def test_a_write_lands_only_over_the_version_read(docs: IncidentDocs) -> None:
    assert docs.put("c1", {"policy": "auto", "incidents": [_incident(1)]}, 0) is True
    doc, version = docs.get("c1")
    assert (doc, version) == ({"policy": "auto", "incidents": [_incident(1)]}, 1)
    assert docs.put("c1", {"policy": "suggest", "incidents": []}, 0) is False  # a writer who read version 0
    assert docs.put("c1", {"policy": "suggest", "incidents": []}, 1) is True
    assert docs.get("c1") == ({"policy": "suggest", "incidents": []}, 2)
    assert docs.get("c2")[1] == 0  # each cluster has its own document


def test_the_newest_incidents_are_kept_newest_first(docs: IncidentDocs) -> None:
    docs.put("c1", {"policy": None, "incidents": [_incident(n) for n in range(KEEP + 5)]}, 0)
    kept = [i["id"] for i in docs.get("c1")[0]["incidents"]]
    assert kept == [f"inc-{n:04d}" for n in range(KEEP + 4, 4, -1)]


def test_a_caller_with_no_preferences_reads_only_its_subject(prefs: Preferences) -> None:
    assert prefs.get("alice") == CallerPreferences("alice", None)


def test_the_active_cluster_is_set_cleared_and_kept_per_caller(prefs: Preferences) -> None:
    assert prefs.set_active_cluster("alice", "train") == CallerPreferences("alice", "train")
    assert prefs.get("alice") == CallerPreferences("alice", "train")
    assert prefs.get("bob") == CallerPreferences("bob", None)
    prefs.set_active_cluster("alice", None)
    assert prefs.get("alice") == CallerPreferences("alice", None)
