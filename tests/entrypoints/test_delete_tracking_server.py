"""delete-cluster's DeleteTrackingServer: Launchpod's own tracking server is deleted and waited for (before
DeleteIdentity removes its role); a server the user picked stays, and a cluster without one skips."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow, ownership
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.delete_cluster import DELETE_TRACKING_SERVER, delete_tracking_server

from tests.entrypoints.fakes import phase_input


class Servers:
    def __init__(self) -> None:
        self.servers: dict[str, dict[str, Any]] = {}
        self.deleted: list[str] = []

    def add(self, name: str, tags: dict[str, str]) -> None:
        arn = f"arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/{name}"
        self.servers[name] = {"TrackingServerName": name, "TrackingServerArn": arn, "TrackingServerStatus": "Created"}
        self.servers[name]["tags"] = tags

    def describe(self, name: str) -> dict[str, Any] | None:
        return self.servers.get(name)

    def tags(self, arn: str) -> dict[str, str]:
        return next(s["tags"] for s in self.servers.values() if s["TrackingServerArn"] == arn)

    def delete(self, name: str) -> None:
        self.deleted.append(name)
        self.servers[name]["TrackingServerStatus"] = "Deleting"


@pytest.fixture
def world(monkeypatch):
    servers, record = Servers(), {"source": "created", "region": "us-east-1"}
    monkeypatch.setattr(wiring, "mlflow", lambda: servers)
    monkeypatch.setattr(wiring, "sagemaker", lambda: SimpleNamespace(tags=servers.tags))  # ListTags
    monkeypatch.setattr(wiring, "clusters", lambda: SimpleNamespace(get=lambda name: record))
    return SimpleNamespace(servers=servers, record=record, prefix=settings().resource_prefix)


def _doc(polls: int = 0) -> WorkflowInput:
    return phase_input("delete-cluster", {}, {DELETE_TRACKING_SERVER: polls})


def test_launchpods_server_is_deleted_once_and_waited_for_until_gone(world):
    name = mlflow.default_name(world.prefix, "c1")
    world.servers.add(name, ownership.aws_tags("c1", world.prefix))
    first = delete_tracking_server(_doc())
    assert (first.ready, first.message) == (False, f"Deleting {name}.")
    again = delete_tracking_server(_doc(1))  # still Deleting: not deleted a second time
    assert again.ready is False and world.servers.deleted == [name]
    del world.servers.servers[name]
    done = delete_tracking_server(_doc(2))
    assert (done.ready, done.skipped, done.message) == (True, False, "Tracking server deleted.")


def test_a_picked_server_of_the_users_is_left_in_place(world):
    world.servers.add("team-server", {"owner": "ml-team"})
    world.record[mlflow.RECORD_ATTRIBUTE] = "team-server"
    result = delete_tracking_server(_doc())
    assert world.servers.deleted == []
    assert result.ready and result.outputs == {"kept": ["team-server"]}
    assert "Left in place (not created by Launchpod): team-server." in str(result.message)


def test_a_server_tagged_for_another_cluster_is_not_this_clusters_to_delete(world):
    world.servers.add("shared", ownership.aws_tags("c2", world.prefix))
    world.record[mlflow.RECORD_ATTRIBUTE] = "shared"
    assert delete_tracking_server(_doc()).outputs == {"kept": ["shared"]} and world.servers.deleted == []


def test_without_a_server_the_phase_is_skipped(world):
    result = delete_tracking_server(_doc())
    assert (result.ready, result.skipped, result.message) == (True, True, "No tracking server to delete.")
