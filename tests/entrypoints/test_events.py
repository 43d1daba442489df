"""EventBridge handlers: HyperPod state changes and node health reach subscribers; drift is recorded."""

from __future__ import annotations

import pytest
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.adapters.store.connections import DynamoConnections
from launchpod.domain import dependencies
from launchpod.entrypoints.events import cluster_event, cluster_state, drift_check, node_health
from launchpod.runtime import wiring

from tests.fakes.eks import Eks
from tests.fakes.operations import Workflows

HYPERPOD_STATE = "SageMaker HyperPod Cluster State Change"
ENDPOINT = "https://abc.execute-api.us-east-1.amazonaws.com/prod"


def _event(detail_type: str, detail: dict) -> dict:
    return {
        "version": "0",
        "id": "e",
        "detail-type": detail_type,
        "source": "aws.sagemaker",
        "account": "123456789012",
        "time": "2026-11-30T00:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": detail,
    }


@pytest.fixture(autouse=True)
def pushes(monkeypatch) -> list[tuple[str, str, dict]]:
    """What API Gateway's management API is asked to post: recorded here rather than sent through moto,
    whose backend a sandbox gateway built earlier in the same process may have replaced."""
    from launchpod.adapters.aws import websocket

    sent: list[tuple[str, str, dict]] = []

    def post(endpoint: str, connection_id: str, message: dict) -> bool:
        sent.append((endpoint, connection_id, message))
        return True

    monkeypatch.setattr(websocket, "post", post)
    return sent


def _stored(clusters: DynamoClusters) -> dict:
    """c1's item as the registry table holds it: what the events record there that no reader of the registry
    reads (the last HyperPod status, the drifted add-ons)."""
    return clusters.table.get_item(Key={"name": "c1"})["Item"]


@pytest.fixture
def stores(tables, monkeypatch):
    clusters, connections = DynamoClusters(tables["clusters"]), DynamoConnections(tables["connections"])
    monkeypatch.setattr(wiring, "clusters", lambda: clusters)
    monkeypatch.setattr(wiring, "connections", lambda: connections)
    clusters.register("c1", source="created", region="us-east-1")
    connections.connect("conn-1", ENDPOINT, "alice")
    connections.subscribe("conn-1", ["cluster:c1"])
    return clusters, connections


def test_a_cluster_state_change_is_recorded_and_pushed_to_subscribers(lambda_context, stores, pushes):
    clusters, _ = stores
    detail = {
        "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefghijkl",
        "ClusterName": "c1",
        "ClusterStatus": "InService",
    }
    result = cluster_state.handler(_event("SageMaker HyperPod Cluster State Change", detail), lambda_context)
    assert result == {"recorded": True, "cluster": "c1", "status": "InService", "pushed": 1, "woken": False}
    assert _stored(clusters)["hyperpodStatus"] == "InService"
    [(endpoint, connection, message)] = pushes
    assert (endpoint, connection, message["topic"], message["type"]) == (ENDPOINT, "conn-1", "cluster:c1", "cluster")


@pytest.fixture
def workflows(monkeypatch):
    fake = Workflows()
    monkeypatch.setattr(wiring, "workflows", lambda: fake)
    return fake


def test_the_in_service_event_wakes_the_workflow_parked_on_the_cluster_once(lambda_context, stores, workflows):
    clusters, _ = stores
    clusters.park_waiter("c1", "token-1")
    creating = {"ClusterName": "c1", "ClusterStatus": "Creating"}
    assert cluster_state.handler(_event(HYPERPOD_STATE, creating), lambda_context)["woken"] is False
    assert workflows.sent == []  # still creating: the workflow sleeps on
    in_service = {"ClusterName": "c1", "ClusterStatus": "InService"}
    assert cluster_state.handler(_event(HYPERPOD_STATE, in_service), lambda_context)["woken"] is True
    assert workflows.sent == [("token-1", {"status": "InService", "wokenBy": "event"})]
    # SageMaker may send an event twice: the token was taken, nobody is woken twice.
    assert cluster_state.handler(_event(HYPERPOD_STATE, in_service), lambda_context)["woken"] is False
    assert len(workflows.sent) == 1


def test_a_failed_cluster_wakes_its_workflow_too(lambda_context, stores, workflows):
    clusters, _ = stores
    clusters.park_waiter("c1", "token-2")
    failed = {"ClusterName": "c1", "ClusterStatus": "Failed", "FailureMessage": "InsufficientInstanceCapacity"}
    assert cluster_state.handler(_event(HYPERPOD_STATE, failed), lambda_context)["woken"] is True
    assert workflows.sent == [("token-2", {"status": "Failed", "wokenBy": "event"})]


def test_events_for_clusters_launchpod_does_not_know_are_ignored(lambda_context, stores):
    detail = {"ClusterName": "someone-elses", "ClusterStatus": "Failed"}
    assert cluster_state.handler(_event(HYPERPOD_STATE, detail), lambda_context) == {
        "recorded": False,
        "woken": False,
    }


def test_node_health_events_reach_the_cluster_topic_with_the_repair_action(lambda_context, stores):
    detail = {
        "ClusterName": "c1",
        "InstanceGroupName": "gpu",
        "InstanceId": "i-0123456789abcdef0",
        "HealthSummary": {
            "HealthStatus": "Unschedulable",
            "HealthStatusReason": "GPU XID 79",
            "RepairAction": "Replace",
        },
    }
    result = node_health.handler(_event("SageMaker HyperPod Cluster Node Health Event", detail), lambda_context)
    assert result["pushed"] == 1 and result["repairAction"] == "Replace" and result["reason"] == "GPU XID 79"


def test_hyperpod_cluster_events_reach_the_cluster_topic_with_their_level_and_description(
    lambda_context, stores, pushes
):
    # the record of the SageMaker HyperPod cluster events reference (EventBridge delivers it in "detail")
    detail = {
        "EventDetails": {
            "EventId": "83ea0bb5-be77-45e8-a458-0a87f778a205",
            "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdef123456",
            "ClusterName": "c1",
            "InstanceGroupName": "gpu",
            "InstanceId": "i-0391f86fa0fe0d465",
            "ResourceType": "Instance",
            "EventTime": 1748794825350,
            "EventLevel": "Error",
            "Description": "Instance creation in Cluster c1 and InstanceGroup gpu failed",
        }
    }
    result = cluster_event.handler(_event("SageMaker HyperPod Cluster Event", detail), lambda_context)
    assert result["pushed"] == 1 and result["level"] == "Error" and result["instanceId"] == "i-0391f86fa0fe0d465"
    [(_, _, message)] = pushes
    assert message["data"]["description"] == "Instance creation in Cluster c1 and InstanceGroup gpu failed"


def test_drift_check_records_add_ons_not_at_their_pinned_version(lambda_context, stores, monkeypatch):
    clusters, _ = stores
    fake_eks = Eks(
        {"c1": {"status": "ACTIVE", "version": "1.34"}},
        {"c1": {"cert-manager": {"addonVersion": "v1.0.0-eksbuild.1", "status": "ACTIVE"}}},
    )
    monkeypatch.setattr(wiring, "eks", lambda: fake_eks)
    assert drift_check.handler({}, lambda_context) == {"checked": 1, "drifted": {"c1": ["cert-manager"]}}
    assert _stored(clusters)["drift"] == ["cert-manager"]


def test_drift_check_records_an_add_on_whose_pin_eks_does_not_offer_for_the_clusters_kubernetes(
    lambda_context, stores, monkeypatch
):
    clusters, _ = stores
    pin = next(a.version for a in dependencies.manifest().addons if a.name == "cert-manager")
    fake_eks = Eks(
        {"c1": {"status": "ACTIVE", "version": "1.35"}},
        {"c1": {"cert-manager": {"addonVersion": pin, "status": "ACTIVE"}}},
        offered={"cert-manager": (["v1.19.0-eksbuild.1"], "v1.19.0-eksbuild.1")},
    )
    monkeypatch.setattr(wiring, "eks", lambda: fake_eks)
    assert drift_check.handler({}, lambda_context) == {"checked": 1, "drifted": {"c1": ["cert-manager"]}}
    assert _stored(clusters)["drift"] == ["cert-manager"]


def test_the_watch_schedule_runs_the_watcher_not_the_drift_check(lambda_context, stores, monkeypatch):
    clusters, _ = stores
    fake_eks = Eks({"c1": {"status": "CREATING", "version": "1.34"}})
    monkeypatch.setattr(wiring, "eks", lambda: fake_eks)
    assert drift_check.handler({"check": "watch"}, lambda_context) == {"checked": 0, "told": {}}
    assert "drift" not in _stored(clusters)
