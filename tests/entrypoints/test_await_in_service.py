"""create-hyperpod's AwaitInService: the task token is parked for the cluster-state event, and a
cluster that settled before the token was parked does not leave its workflow asleep."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.entrypoints.workflows import await_in_service
from launchpod.runtime import wiring

from tests.fakes.operations import Workflows

DOCUMENT = {"operationId": "op-1", "kind": "create-hyperpod", "target": "c1", "request": {"name": "c1"}}


@pytest.fixture
def world(tables, monkeypatch):
    clusters, workflows = DynamoClusters(tables["clusters"]), Workflows()
    status = {"value": "Creating"}
    sagemaker = SimpleNamespace(
        hyperpod_cluster=lambda name: hyperpod_cluster_of({"ClusterName": name, "ClusterStatus": status["value"]})
    )
    monkeypatch.setattr(wiring, "clusters", lambda: clusters)
    monkeypatch.setattr(wiring, "workflows", lambda: workflows)
    monkeypatch.setattr(wiring, "sagemaker", lambda: sagemaker)
    clusters.register("c1", source="created", region="us-east-1")
    return SimpleNamespace(clusters=clusters, workflows=workflows, status=status)


def test_a_creating_cluster_parks_the_token_for_the_event(world, lambda_context):
    result = await_in_service.handler({"document": DOCUMENT, "taskToken": "tok"}, lambda_context)
    assert result == {"parked": True, "status": "Creating"}
    assert world.workflows.sent == []
    assert world.clusters.take_waiter("c1") == "tok"


def test_a_cluster_already_in_service_wakes_its_workflow_at_once(world, lambda_context):
    world.status["value"] = "InService"  # the event came before the token was parked
    result = await_in_service.handler({"document": DOCUMENT, "taskToken": "tok"}, lambda_context)
    assert result == {"parked": False, "status": "InService"}
    assert world.workflows.sent == [("tok", {"status": "InService", "wokenBy": "check"})]
    assert world.clusters.take_waiter("c1") is None  # nothing left for a late event to send twice
