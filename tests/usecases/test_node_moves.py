"""Moving nodes against an in-memory HyperPod, Kubernetes, EC2 and operations table: the refusals AWS
documents, made before anything is drained (nothing starts), which nodes a count picks, and the plan a dry
run shows."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.nodes import MoveNodesRequest
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.operations import Planned
from launchpod.usecases import node_moves

from tests.fakes.ec2 import Ec2
from tests.fakes.kube_listing import KubeLists
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker

A, B, C = "i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2", "i-0ccccccccccccccc3"
ADMIN = ops.Principal(subject="alice", role=Role.ADMIN)
PLAN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/night-shift"


def _group(name: str, count: int, **extra: Any) -> dict[str, Any]:
    return {"InstanceGroupName": name, "InstanceType": "ml.p5.48xlarge", "TargetCount": count, **extra}


def _cluster(
    name: str = "c1", *groups: dict[str, Any], mode: str | None = "Continuous", region: str = "us-east-1"
) -> dict[str, Any]:
    return {
        "ClusterName": name,
        "ClusterArn": f"arn:aws:sagemaker:{region}:123456789012:cluster/{name}abcdefghij"[:75],
        "ClusterStatus": "InService",
        "Orchestrator": {"Eks": {"ClusterArn": f"arn:aws:eks:{region}:123456789012:cluster/{name}"}},
        "VpcConfig": {"Subnets": ["subnet-a"]},
        "InstanceGroups": list(groups) or [_group("train", 3, TrainingPlanArn=PLAN), _group("infer", 0)],
        **({"NodeProvisioningMode": mode} if mode else {}),
    }


def _node(node_id: str, group: str = "train", status: str = "Running", kind: str = "ml.p5.48xlarge") -> dict[str, Any]:
    return {
        "InstanceId": node_id,
        "InstanceGroupName": group,
        "InstanceType": kind,
        "InstanceStatus": {"Status": status},
    }


def _kube_node(node_id: str, zone: str = "us-east-1a") -> dict[str, Any]:
    return {
        "metadata": {"name": f"hyperpod-{node_id}", "labels": {"topology.kubernetes.io/zone": zone}},
        "spec": {"providerID": f"aws:///{zone}/{node_id}"},
    }


def _pod(name: str, node_id: str, owner: str = "ReplicaSet") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ml", "ownerReferences": [{"kind": owner, "name": "x"}]},
        "spec": {"nodeName": f"hyperpod-{node_id}"},
        "status": {"phase": "Running"},
    }


def _ports(
    clusters: dict[str, dict[str, Any]] | None = None,
    nodes: list[dict[str, Any]] | None = None,
    pods: list[dict[str, Any]] | None = None,
    zone_of_c: str = "us-east-1a",
) -> node_moves.MovePorts:
    listed = nodes if nodes is not None else [_node(A), _node(B), _node(C)]
    kube = KubeLists(
        {"Node": [_kube_node(A), _kube_node(B), _kube_node(C, zone_of_c)], "Pod": pods if pods is not None else []}
    )
    sm = SageMaker(clusters or {"c1": _cluster()}, {"c1": listed})
    return node_moves.MovePorts(
        sagemaker=sm,
        kube=kube,
        subnets=Ec2(subnets={"subnet-a": "us-east-1a"}),
        operations=Operations(),
        workflows=Workflows(),
    )


def _move(ports: node_moves.MovePorts, principal: ops.Principal = ADMIN, **body: Any) -> Any:
    request = MoveNodesRequest.model_validate(
        {"sourceGroup": "train", "targetGroup": "infer", "acknowledgeDataLoss": True, **body}
    )
    return node_moves.move("c1", request, principal, ports=ports)


def test_a_count_picks_the_nodes_with_the_fewest_pods_and_the_dry_run_shows_drain_move_and_wait():
    pods = [_pod("trainer-0", A), _pod("trainer-1", A), _pod("server-0", B), _pod("agent", C, owner="DaemonSet")]
    ports = _ports(pods=pods)
    with pytest.raises(Planned) as planned:
        _move(ports, ops.Principal(subject="alice", role=Role.ADMIN, dry_run=True), count=2)
    steps = [(s.action, s.target, s.reason) for s in planned.value.steps]
    # C has only a DaemonSet pod (which a drain leaves), B one pod; A, with two, stays
    assert [t for a, t, _ in steps if a == "drain"] == [f"node {C}", f"node {B}"]
    assert steps[0][2] == "cordon, then no pods to evict" and steps[1][2] == "cordon, then evict 1 pod(s): ml/server-0"
    moved = [r for a, _, r in steps if a == "move"]
    kept = "into group infer, keeping the same instance and training plan night-shift"
    assert moved and all(kept in r for r in moved)
    assert steps[-1][0] == "wait" and ports.workflows.started == []  # type: ignore[attr-defined]


def test_the_operation_carries_the_chosen_nodes_and_the_target_cluster():
    ports = _ports()
    operation = _move(ports, nodeIds=[B])
    assert (operation.kind, operation.request["nodeIds"], operation.request["targetCluster"]) == (
        "move-nodes",
        [B],
        "c1",
    )
    assert [kind for kind, _, _ in ports.workflows.started] == ["move-nodes"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("clusters", "words"),
    [
        ({"c1": _cluster(mode=None)}, "does not use continuous provisioning"),
        ({"c1": {**_cluster(), "ClusterStatus": "Updating"}}, "c1 is Updating"),
        ({"c1": {**_cluster(), "Orchestrator": {"Slurm": {}}}}, "not orchestrated by Amazon EKS"),
    ],
)
def test_a_cluster_aws_cannot_move_nodes_in_is_a_409_saying_why_and_starts_nothing(clusters, words):
    ports = _ports(clusters)
    with pytest.raises(Conflict, match=words):
        _move(ports, count=1)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_nodes_of_another_type_zone_or_state_are_refused_with_aws_reason_by_node():
    groups = (_group("train", 3), _group("infer", 0), _group("cpu", 0, InstanceType="ml.m5.2xlarge"))
    ports = _ports({"c1": _cluster("c1", *groups)}, zone_of_c="us-east-1b")
    with pytest.raises(Conflict, match=r"ml.p5.48xlarge, which the target group does not run \(ml.m5.2xlarge"):
        _move(ports, targetGroup="cpu", nodeIds=[A])
    with pytest.raises(Conflict, match=rf"{C} is in us-east-1b; the target group's subnets are in us-east-1a"):
        _move(ports, nodeIds=[C])
    busy = _ports(nodes=[_node(A, status="SystemUpdating"), _node(B), _node(C)])
    with pytest.raises(Conflict, match=r"train has 2 node\(s\) that can move, 3 asked: .*SystemUpdating"):
        _move(busy, count=3)


def test_requests_that_name_the_wrong_group_node_or_cluster_are_422s_naming_the_field():
    ports = _ports({"c1": _cluster(), "eu": _cluster("eu", region="eu-west-1")})
    cases = [
        ({"targetGroup": "train", "count": 1}, "body.targetGroup", "already in train"),
        ({"targetGroup": "serve", "count": 1}, "body.targetGroup", "no instance group serve; it has infer, train"),
        ({"nodeIds": ["i-0ddddddddddddddd4"]}, "body.nodeIds", "not in instance group train"),
        ({"targetCluster": "eu", "count": 1}, "body.targetCluster", "one Region"),
        ({"targetCluster": "gone", "count": 1}, "body.targetCluster", "gone has no HyperPod cluster"),
    ]
    for body, field, words in cases:
        with pytest.raises(InvalidInput, match=words) as refused:
            _move(ports, **body)
        assert refused.value.details[0]["field"] == field


def test_a_move_below_the_source_groups_minimum_or_without_the_data_loss_acknowledgement_starts_nothing():
    groups = (_group("train", 3, MinCount=2), _group("infer", 0))
    ports = _ports({"c1": _cluster("c1", *groups)})
    with pytest.raises(Conflict, match="below its minimum instance count of 2; move at most 1"):
        _move(ports, count=2)
    request = MoveNodesRequest(sourceGroup="train", targetGroup="infer", count=1)
    with pytest.raises(InvalidInput, match="EBS volumes") as refused:
        node_moves.move("c1", request, ADMIN, ports=ports)
    assert refused.value.details[0]["field"] == "body.acknowledgeDataLoss"
    assert ports.workflows.started == []  # type: ignore[attr-defined]
