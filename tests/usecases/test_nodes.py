"""The nodes use cases against an in-memory HyperPod, Kubernetes and operations table: the joined list a
user reads, the refusals a node action meets before anything starts, and what starts when it is allowed."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.nodes import (
    DestructiveNodeActionRequest,
    HealthCheckRequest,
    ListEventsInput,
    NodeActionRequest,
)
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, RetryableError
from launchpod.usecases import nodes

from tests.fakes.kube_listing import KubeLists
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker

A, B = "i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2"
ADMIN = ops.Principal(subject="alice", role=Role.ADMIN)


def _cluster(status: str = "InService", mode: str | None = "Continuous") -> dict[str, Any]:
    return {
        "ClusterName": "c1",
        "ClusterStatus": status,
        "InstanceGroups": [{"InstanceGroupName": "gpu"}, {"InstanceGroupName": "cpu"}],
        **({"NodeProvisioningMode": mode} if mode else {}),
    }


def _summary(node_id: str, group: str) -> dict[str, Any]:
    return {
        "InstanceId": node_id,
        "InstanceGroupName": group,
        "InstanceType": "ml.g5.8xlarge",
        "InstanceStatus": {"Status": "Running", "Message": ""},
    }


def _kube_node(node_id: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"hyperpod-{node_id}", "labels": {"sagemaker.amazonaws.com/cluster-node-id": node_id}},
        "spec": {"providerID": f"aws:///us-east-1a/{node_id}"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}], "allocatable": {"nvidia.com/gpu": "1"}},
    }


def _ports(
    status: str = "InService", kube: KubeLists | None = None, events: list[dict[str, Any]] | None = None
) -> nodes.NodePorts:
    sm = SageMaker({"c1": _cluster(status)}, {"c1": [_summary(B, "gpu"), _summary(A, "cpu")]}, events)
    return nodes.NodePorts(sagemaker=sm, kube=kube or KubeLists({}), operations=Operations(), workflows=Workflows())


def test_nodes_are_listed_by_group_then_id_joined_with_their_kubernetes_node():
    ports = _ports(kube=KubeLists({"Node": [_kube_node(B)]}))
    listed = nodes.list_nodes("c1", ports=ports).items
    assert [(n.instanceGroup, n.nodeId, n.kubernetesNode, n.ready) for n in listed] == [
        ("cpu", A, None, None),
        ("gpu", B, f"hyperpod-{B}", True),
    ]


def test_nodes_are_still_listed_while_the_kubernetes_api_cannot_be_read():
    ports = _ports(kube=KubeLists({}, error=RetryableError("the API server is not reachable")))
    assert [n.nodeId for n in nodes.list_nodes("c1", ports=ports).items] == [A, B]


def test_an_unknown_cluster_or_node_is_not_found_with_where_to_look():
    with pytest.raises(NotFound, match=r"c2 has no HyperPod cluster; create one first") as refused:
        nodes.list_nodes("c2", ports=_ports())
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "POST /api/clusters/c2/hyperpod"}]
    with pytest.raises(NotFound, match=r"c1 has no node i-0ccc.*; choose one of its nodes") as refused:
        nodes.get_node("c1", "i-0cccccccccccccccc3", ports=_ports())
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "GET /api/clusters/c1/nodes"}]


def test_a_replace_without_the_data_loss_acknowledgement_starts_nothing():
    ports = _ports()
    with pytest.raises(InvalidInput, match="instance volumes") as refused:
        nodes.replace("c1", DestructiveNodeActionRequest(nodeIds=[A]), ADMIN, ports=ports)
    assert refused.value.details[0]["field"] == "body.acknowledgeDataLoss"
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_a_reboot_waits_while_the_cluster_is_creating_and_starts_once_it_is_in_service():
    with pytest.raises(Conflict, match="The HyperPod cluster c1 is Creating; its nodes cannot be acted on now"):
        nodes.reboot("c1", NodeActionRequest(nodeIds=[A]), ADMIN, ports=_ports("Creating"))
    ports = _ports()
    operation = nodes.reboot("c1", NodeActionRequest(nodeIds=[A]), ADMIN, ports=ports)
    assert (operation.kind, operation.target, operation.request, operation.createdBy) == (
        "reboot-nodes",
        "c1",
        {"nodeIds": [A]},
        "alice",
    )
    assert [(w, n) for w, n, _ in ports.workflows.started] == [("reboot-nodes", operation.id)]  # type: ignore[attr-defined]


def test_node_ids_the_cluster_has_never_had_are_refused_by_name_before_anything_starts():
    """Thirty ids the cluster never had were accepted (202) and left to fail at AWS, batch by batch."""
    strangers = [f"i-0{n:016x}" for n in range(30)]
    ports = _ports()
    with pytest.raises(InvalidInput, match=r"The cluster has no node i-00000000000000000, .* and 20 more") as refused:
        nodes.reboot("c1", NodeActionRequest(nodeIds=[A, *strangers]), ADMIN, ports=ports)
    assert refused.value.details[0]["field"] == "body.nodeIds"
    replacing = DestructiveNodeActionRequest(nodeIds=[strangers[0]], acknowledgeDataLoss=True)
    with pytest.raises(InvalidInput, match="no node"):
        nodes.replace("c1", replacing, ADMIN, ports=ports)
    wrong_group = HealthCheckRequest(targets=[{"instanceGroup": "gpu", "nodeIds": [A]}])
    with pytest.raises(InvalidInput, match=rf"Nodes {A} \(in cpu\) are not in the instance group"):
        nodes.health_check("c1", wrong_group, ADMIN, ports=ports)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_a_health_check_of_a_group_the_cluster_lacks_names_the_groups_it_has():
    request = HealthCheckRequest(targets=[{"instanceGroup": "gpu"}, {"instanceGroup": "trn"}])
    with pytest.raises(InvalidInput, match=r"c1 has no instance group trn; it has cpu, gpu\."):
        nodes.health_check("c1", request, ADMIN, ports=_ports())


def test_events_of_a_cluster_without_continuous_provisioning_are_a_409_saying_why_and_are_not_asked_for():
    sm = SageMaker({"c1": _cluster(mode=None)}, {}, [{"EventId": "e0", "EventLevel": "Error"}])
    ports = nodes.NodePorts(sagemaker=sm, kube=KubeLists({}), operations=Operations(), workflows=Workflows())
    with pytest.raises(Conflict) as refused:
        nodes.list_events(ListEventsInput(name="c1"), ports=ports)
    assert "only for clusters with continuous provisioning" in str(refused.value)
    assert "Clusters created with continuous provisioning have their events" in str(refused.value) and sm.pages == 0
    assert "/api/" not in str(refused.value)


def test_events_at_one_level_are_read_page_after_page_until_enough_are_found():
    events = [
        {"EventId": f"e{i}", "EventLevel": "Error" if i % 4 == 0 else "Info", "ResourceType": "Instance"}
        for i in range(12)
    ]
    ports = _ports(events=events)
    found = nodes.list_events(ListEventsInput(name="c1", level="Error", limit=2, details=False), ports=ports)
    assert [e.eventId for e in found.items] == ["e0", "e4"]
    assert found.nextToken == "6" and ports.sagemaker.described == []  # type: ignore[attr-defined]
