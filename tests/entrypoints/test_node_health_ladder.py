"""The node-health handler folds HyperPod's events into incidents: a pair makes one incident with one
suggestion, a Healthy event closes an incident nobody acted on, and under auto the ladder starts the
reboot as an operation."""

from __future__ import annotations

import pytest
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.adapters.store.connections import DynamoConnections
from launchpod.adapters.store.incidents import DynamoIncidents
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.entrypoints.events import node_health
from launchpod.runtime import wiring

from tests.fakes.operations import Workflows

NODE = "i-0123456789abcdef0"
REASON = (
    "HyperPod Health Monitoring Agent (HMA) has detected fault type NvidiaErrorTerminate on this node and is unhealthy."
)


def _event(status: str = "Unhealthy") -> dict:
    summary = {
        "HealthStatus": status,
        "HealthStatusReason": REASON,
        "RepairAction": "None",
        "Recommendation": "Please Replace the Faulty Node.",
    }
    return {
        "version": "0",
        "id": "e",
        "detail-type": "SageMaker HyperPod Cluster Node Health Event",
        "source": "aws.sagemaker",
        "account": "123456789012",
        "time": "2026-12-01T12:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {
            "ClusterName": "c1",
            "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefghijkl",
            "InstanceId": NODE,
            "Tags": {},
            "HealthSummary": summary,
        },
    }


class BootedNodes:
    """A cluster's API server as far as reading a Node goes: each node on its first boot."""

    def read(self, cluster: str, obj: dict) -> dict | None:
        return {**obj, "status": {"nodeInfo": {"bootID": "boot-1"}}} if obj["kind"] == "Node" else None


@pytest.fixture
def stores(tables, monkeypatch):
    from launchpod.adapters.aws import websocket

    monkeypatch.setattr(websocket, "post", lambda endpoint, connection, message: True)
    incidents = DynamoIncidents(tables["incidents"])
    operations = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    workflows = Workflows()
    monkeypatch.setattr(wiring, "incidents", lambda: incidents)
    monkeypatch.setattr(wiring, "operations", lambda: operations)
    monkeypatch.setattr(wiring, "workflows", lambda: workflows)
    monkeypatch.setattr(wiring, "clusters", lambda: DynamoClusters(tables["clusters"]))
    monkeypatch.setattr(wiring, "connections", lambda: DynamoConnections(tables["connections"]))
    monkeypatch.setattr(wiring, "kube", lambda: BootedNodes())
    return incidents, workflows


def test_a_health_status_aws_does_not_document_opens_no_incident_and_acts_on_nothing(lambda_context, stores):
    incidents, workflows = stores
    answer = node_health.handler(_event("Degraded"), lambda_context)
    assert "neither Healthy nor Unhealthy" in answer["ladder"]["ignored"] and answer["healthStatus"] == "Degraded"
    assert not (incidents.get("c1")[0] or {}).get("incidents") and workflows.started == []


def test_a_pair_of_events_makes_one_incident_and_one_suggested_reboot(lambda_context, stores):
    incidents, workflows = stores
    first = node_health.handler(_event(), lambda_context)["ladder"]
    second = node_health.handler(_event(), lambda_context)["ladder"]
    assert first["opened"] and not first["duplicate"] and second["duplicate"]
    [incident] = incidents.get("c1")[0]["incidents"]
    assert (incident["events"], incident["duplicates"], incident["faultType"]) == (2, 1, "NvidiaErrorTerminate")
    assert incident["nextStep"]["tool"] == "reboot_nodes" and workflows.started == []


def test_a_healthy_event_closes_the_incident_nobody_acted_on(lambda_context, stores):
    incidents, _ = stores
    node_health.handler(_event(), lambda_context)
    node_health.handler(_event("Healthy"), lambda_context)
    assert incidents.get("c1")[0]["incidents"][0]["state"] == "resolved"


def test_under_auto_the_ladder_starts_the_reboot_as_its_own_operation(lambda_context, stores):
    incidents, workflows = stores
    doc, version = incidents.get("c1")
    assert incidents.put("c1", {**doc, "policy": "auto"}, version)
    result = node_health.handler(_event(), lambda_context)["ladder"]
    assert result["ran"] == "reboot"
    [(kind, _name, document)] = workflows.started
    assert kind == "reboot-nodes" and document["request"] == {"nodeIds": [NODE]}
    [incident] = incidents.get("c1")[0]["incidents"]
    assert incident["state"] == "acting" and incident["steps"][-1]["mode"] == "ran"
