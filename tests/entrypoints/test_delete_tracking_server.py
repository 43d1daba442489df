"""delete-cluster's DeleteTrackingServer: Launchpod's own tracking server is deleted and waited for (before
DeleteIdentity removes its role); a server the user picked stays, and a cluster without one skips."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow, ownership
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.delete_cluster import DELETE_TRACKING_SERVER, delete_tracking_server

from tests.entrypoints.fakes import phase_input
from tests.fakes.clusters import Clusters
from tests.fakes.mlflow import Servers
from tests.fakes.sagemaker import SageMaker


@pytest.fixture
def world(monkeypatch):
    servers, sagemaker, record = Servers(), SageMaker({}), {"source": "created", "region": "us-east-1"}
    registry = Clusters({"c1": record})  # c1's item: a test names a server on it
    monkeypatch.setattr(wiring, "mlflow", lambda: servers)
    monkeypatch.setattr(wiring, "sagemaker", lambda: sagemaker)  # ListTags
    monkeypatch.setattr(wiring, "clusters", lambda: registry)

    def add(name: str, tags: dict[str, str]) -> None:
        sagemaker.tagged[servers.add(name)["TrackingServerArn"]] = tags

    return SimpleNamespace(servers=servers, add=add, record=record, prefix=settings().resource_prefix)


def _doc(polls: int = 0) -> WorkflowInput:
    return phase_input("delete-cluster", {}, {DELETE_TRACKING_SERVER: polls})


def test_launchpods_server_is_deleted_once_and_waited_for_until_gone(world):
    name = mlflow.default_name(world.prefix, "c1")
    world.add(name, ownership.aws_tags("c1", world.prefix))
    first = delete_tracking_server(_doc())
    assert (first.ready, first.message) == (False, f"Deleting {name}.")
    again = delete_tracking_server(_doc(1))  # still Deleting: not deleted a second time
    assert again.ready is False and world.servers.deleted == [name]
    del world.servers.servers[name]
    done = delete_tracking_server(_doc(2))
    assert (done.ready, done.skipped, done.message) == (True, False, "Tracking server deleted.")


def test_a_picked_server_of_the_users_is_left_in_place(world):
    world.add("team-server", {"owner": "ml-team"})
    world.record[mlflow.RECORD_ATTRIBUTE] = "team-server"
    result = delete_tracking_server(_doc())
    assert world.servers.deleted == []
    assert result.ready and result.outputs == {"kept": ["team-server"]}
    assert "Left in place (not created by Launchpod): team-server." in str(result.message)


def test_a_server_tagged_for_another_cluster_is_not_this_clusters_to_delete(world):
    world.add("shared", ownership.aws_tags("c2", world.prefix))
    world.record[mlflow.RECORD_ATTRIBUTE] = "shared"
    assert delete_tracking_server(_doc()).outputs == {"kept": ["shared"]} and world.servers.deleted == []


def test_without_a_server_the_phase_is_skipped(world):
    result = delete_tracking_server(_doc())
    assert (result.ready, result.skipped, result.message) == (True, True, "No tracking server to delete.")
