"""SageMaker's contract: the in-memory fake (tests/fakes/sagemaker.py) and adapters.aws.sagemaker on the sandbox's
SageMaker answer alike for a cluster that does not exist (DescribeCluster, its nodes, its events, an event, the
account's clusters, a training plan nobody bought) and for a created cluster's nodes and events: each node with
its group, a node by id, the events newest first, filtered (resource type, node, group, time) and paged, an
event by id; and for a move of its nodes: those it can move started, each other refused by id with AWS's code,
a move of none refused whole."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from launchpod.adapters.aws.sagemaker import SageMaker as Adapter
from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes.hyperpod_event import EventFilter
from launchpod.domain.nodes.moves import MoveRefusal, NodeMove
from launchpod.usecases.ports import HyperPodMoves, HyperPodNodes, HyperPods

import sandbox.aws
from sandbox.aws import clock
from sandbox.aws import sagemaker as hyperpod
from tests.fakes.sagemaker import SageMaker
from tests.sandbox.aws.support import ROLE_ARN, wait_until

GROUP = {
    "InstanceGroupName": "workers",
    "InstanceType": "ml.p5.48xlarge",
    "InstanceCount": 2,
    "ExecutionRole": ROLE_ARN,
    "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-launchpod-lifecycle/hyperpod/", "OnCreate": "on_create.sh"},
}
VPC = {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]}


class Port(HyperPodNodes, HyperPods):
    """The reads the use cases make of SageMaker's HyperPod."""


@pytest.fixture(params=["fake", "sagemaker"])
def sagemaker(request: pytest.FixtureRequest) -> Port:
    if request.param == "fake":
        return SageMaker({})
    hyperpod.install()  # the sandbox's HyperPod
    return Adapter()


def _seeded(name: str) -> SageMaker:
    """The fake holding what SageMaker answers for ``name`` created InService with two workers (HyperPod keeps
    events only under continuous provisioning): its nodes and its events, newest first."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    ids = ["i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002"]
    nodes = [
        {"InstanceGroupName": "workers", "InstanceId": i, "InstanceType": "ml.p5.48xlarge"}
        | {"InstanceStatus": {"Status": "Running"}, "LaunchTime": at}
        for i in ids
    ]
    base = {"ClusterName": name, "ClusterArn": f"arn:aws:sagemaker:us-east-1:123456789012:cluster/{name}"}
    events = [
        {"ResourceType": "InstanceGroup", "InstanceGroupName": "workers", "Description": "workers is InService."},
        {"ResourceType": "Instance", "InstanceGroupName": "workers", "InstanceId": ids[1], "Description": "running"},
        {"ResourceType": "Cluster", "Description": f"Cluster {name} is InService."},
        {"ResourceType": "Instance", "InstanceGroupName": "workers", "InstanceId": ids[0], "Description": "running"},
        {"ResourceType": "Cluster", "Description": f"Cluster {name} creation started."},
    ]
    described = {
        "ClusterName": name,
        "ClusterArn": f"arn:aws:sagemaker:us-east-1:123456789012:cluster/{name}0abc1de2f3",
        "ClusterStatus": "InService",
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": VPC,
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-east-1:123456789012:cluster/hp-eks"}},
        "InstanceGroups": [
            {k: v for k, v in GROUP.items() if k != "InstanceCount"}
            | {"Status": "InService", "CurrentCount": 2, "TargetCount": 2, "ThreadsPerCore": 1}
            | {"ImageVersionStatus": "UpToDate"}
        ],
    }
    return SageMaker(
        {name: described},
        {name: nodes},
        [
            {**base, **e, "EventId": f"e-{i}", "EventLevel": "Info", "EventTime": at - timedelta(seconds=i)}
            for i, e in enumerate(events)
        ],
    )


def _created(request: pytest.FixtureRequest, *groups: dict[str, Any]) -> Iterator[Adapter]:
    """The adapter on the sandbox with the cluster "hp" created with ``groups`` and InService."""
    client: Callable[[str], Any] = request.getfixturevalue("client")
    sandbox.aws.install(0.001)
    hyperpod.install()
    eks = client("eks")
    arn = eks.create_cluster(
        name="hp-eks",
        roleArn=ROLE_ARN,
        resourcesVpcConfig={"subnetIds": VPC["Subnets"], "securityGroupIds": VPC["SecurityGroupIds"]},
        accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"},
    )["cluster"]["arn"]
    wait_until(lambda: eks.describe_cluster(name="hp-eks")["cluster"]["status"] == "ACTIVE")
    clock.set_time_scale(0.00002)  # creation's simulated minutes pass in milliseconds
    sm = client("sagemaker")
    sm.create_cluster(
        ClusterName="hp",
        InstanceGroups=list(groups),
        VpcConfig=VPC,
        Orchestrator={"Eks": {"ClusterArn": arn}},
        NodeProvisioningMode="Continuous",
    )
    wait_until(lambda: sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService", reason="hp not InService")
    yield Adapter()
    hyperpod.reset_durations()


@pytest.fixture(params=["fake", "sagemaker"])
def created(request: pytest.FixtureRequest) -> Iterator[Port]:
    """The port with the cluster "hp" created and InService, two workers."""
    if request.param == "fake":
        yield _seeded("hp")
        return
    yield from _created(request, GROUP)


@pytest.fixture(params=["fake", "sagemaker"])
def movable(request: pytest.FixtureRequest) -> Iterator[HyperPodMoves]:
    """The port with "hp" created and InService, two workers and an empty group "spare" of their type (the fake
    checks only the nodes of a move, so it is seeded as ``created``)."""
    if request.param == "fake":
        yield _seeded("hp")
        return
    yield from _created(request, GROUP, {**GROUP, "InstanceGroupName": "spare", "InstanceCount": 0})


def test_a_created_cluster_reads_as_its_name_arn_status_and_groups(created: Port) -> None:
    [cluster] = created.hyperpod_clusters()
    assert (cluster.name, cluster.status, cluster.failure_message) == ("hp", "InService", None)
    assert re.fullmatch(r"arn:aws:sagemaker:us-east-1:123456789012:cluster/[a-z0-9]+", cluster.arn)
    # HyperPod reports the threads per core it chose; the spec is what UpdateCluster is sent to keep the group
    assert cluster.instance_groups == (
        InstanceGroupState(
            "workers",
            "InService",
            "ml.p5.48xlarge",
            current_count=2,
            target_count=2,
            image_version_status="UpToDate",
            threads_per_core=1,
            execution_role=ROLE_ARN,
            spec={**GROUP, "ThreadsPerCore": 1},
        ),
    )
    assert cluster.group("workers") == cluster.instance_groups[0] and cluster.group("ghost") is None
    assert (cluster.continuous, cluster.subnets, cluster.security_group_ids) == (
        True,
        tuple(VPC["Subnets"]),
        tuple(VPC["SecurityGroupIds"]),
    )
    assert cluster.eks_arn == "arn:aws:eks:us-east-1:123456789012:cluster/hp-eks"
    assert (cluster.autoscaling, cluster.tiered_storage_mode) == (None, None)
    assert created.hyperpod_cluster("hp") == cluster


def test_a_created_clusters_nodes_list_each_with_its_group_type_status_and_launch_time(created: Port) -> None:
    nodes = created.list_nodes("hp")
    assert [(n.group, n.instance_type, n.status, n.message) for n in nodes] == [
        ("workers", "ml.p5.48xlarge", "Running", "")
    ] * 2
    assert len({n.node_id for n in nodes}) == 2 and all(n.node_id.startswith("i-") for n in nodes)
    assert all(isinstance(n.launch_time, datetime) and n.launch_time.tzinfo for n in nodes)


def test_a_node_is_described_by_its_id_and_an_unknown_id_is_none(created: Port) -> None:
    node = created.list_nodes("hp")[0]
    found = created.describe_node("hp", node.node_id)
    assert found is not None
    assert (found.node_id, found.group, found.instance_type, found.status) == (
        node.node_id,
        "workers",
        "ml.p5.48xlarge",
        "Running",
    )
    assert found.launch_time == node.launch_time
    assert found.described["InstanceId"] == node.node_id  # NodeDetails as sent, for the node's detail view
    assert created.describe_node("hp", "i-00000000000000000") is None


def test_a_created_clusters_events_come_newest_first_from_creation_started_to_in_service(created: Port) -> None:
    page = created.list_events("hp", EventFilter(), 50, None)
    events = page.events
    times = [e.time for e in events if e.time is not None]
    assert len(times) == len(events) and times == sorted(times, reverse=True)
    assert events[-1].description == "Cluster hp creation started."
    assert {e.resource_type for e in events} == {"Cluster", "InstanceGroup", "Instance"}
    assert all(e.cluster == "hp" and e.event_id and e.level == "Info" for e in events)
    assert {e.group for e in events if e.resource_type != "Cluster"} == {"workers"}
    assert page.next_token is None


def test_events_filter_by_resource_type_and_by_node_id(created: Port) -> None:
    clusters = created.list_events("hp", EventFilter(resource_type="Cluster"), 50, None).events
    assert [e.resource_type for e in clusters] == ["Cluster", "Cluster"]
    node = created.list_nodes("hp")[0].node_id
    of_node = created.list_events("hp", EventFilter(node_id=node), 50, None).events
    assert of_node and {e.node_id for e in of_node} == {node}


def test_events_filter_by_group_and_by_a_time_window(created: Port) -> None:
    every = created.list_events("hp", EventFilter(), 50, None).events
    of_group = created.list_events("hp", EventFilter(group="workers"), 50, None).events
    assert of_group and [e.event_id for e in of_group] == [e.event_id for e in every if e.group == "workers"]
    newest, oldest, second = every[0].time, every[-1].time, timedelta(seconds=1)
    assert newest is not None and oldest is not None
    around = EventFilter(after=oldest - second, before=newest + second)
    assert [e.event_id for e in created.list_events("hp", around, 50, None).events] == [e.event_id for e in every]
    assert created.list_events("hp", EventFilter(after=newest + second), 50, None).events == ()
    assert created.list_events("hp", EventFilter(before=oldest - second), 50, None).events == ()


def test_events_page_by_limit_and_the_token_reads_on_without_repeating(created: Port) -> None:
    every = [e.event_id for e in created.list_events("hp", EventFilter(), 50, None).events]
    first = created.list_events("hp", EventFilter(), 2, None)
    assert len(first.events) == 2 and first.next_token
    seen, token = [e.event_id for e in first.events], first.next_token
    while token:
        page = created.list_events("hp", EventFilter(), 2, token)
        seen, token = seen + [e.event_id for e in page.events], page.next_token
    assert seen == every


def test_an_event_is_described_by_its_id_and_an_unknown_id_is_none(created: Port) -> None:
    summary = created.list_events("hp", EventFilter(), 50, None).events[0]
    found = created.describe_event("hp", summary.event_id)
    assert found is not None
    assert (found.event_id, found.description, found.resource_type, found.time, found.level) == (
        summary.event_id,
        summary.description,
        summary.resource_type,
        summary.time,
        summary.level,
    )
    assert found.failure_messages == ()  # an Info event tells no failure
    assert created.describe_event("hp", "00000000-0000-0000-0000-000000000000") is None


def _move(port: HyperPodMoves, *node_ids: str) -> NodeMove:
    cluster = port.hyperpod_cluster("hp")
    assert cluster is not None
    return NodeMove(cluster.arn, "workers", cluster.arn, "spare", node_ids, "op-1")


def test_a_move_starts_the_nodes_it_can_and_refuses_each_other_by_id_with_aws_code(movable: HyperPodMoves) -> None:
    node, ghost = movable.list_nodes("hp")[0].node_id, "i-00000000000000000"
    moved = movable.move_nodes(_move(movable, node, ghost))
    assert moved.accepted == (node,)
    why = f"Node {ghost} does not exist in instance group workers."
    assert moved.refused == (MoveRefusal(ghost, "NodeIdNotFound", why),)


def test_a_move_of_no_node_that_can_move_is_refused_whole_saying_why(movable: HyperPodMoves) -> None:
    with pytest.raises(PermanentError, match=r"MoveClusterNodes failed: .*None of the nodes can be moved: Node i-0+ "):
        movable.move_nodes(_move(movable, "i-00000000000000000"))


def test_a_cluster_nobody_created_describes_as_none(sagemaker: Port) -> None:
    assert sagemaker.hyperpod_cluster("ghost") is None
    assert sagemaker.hyperpod_clusters() == []
    assert sagemaker.hyperpod_names() == []


def test_a_created_cluster_is_listed_by_name(created: Port) -> None:
    assert created.hyperpod_names() == ["hp"]


def test_the_nodes_and_events_of_a_cluster_that_does_not_exist_are_refused_naming_it(sagemaker: Port) -> None:
    with pytest.raises(PermanentError, match="ListClusterNodes failed: ResourceNotFound: Cluster ghost not found"):
        sagemaker.list_nodes("ghost")
    with pytest.raises(PermanentError, match="ListClusterEvents failed: ResourceNotFound: Cluster ghost not found"):
        sagemaker.list_events("ghost", EventFilter(), 10, None)


def test_a_node_or_an_event_of_a_cluster_that_does_not_exist_is_none(sagemaker: Port) -> None:
    assert sagemaker.describe_node("ghost", "i-0123456789abcdef0") is None
    assert sagemaker.describe_event("ghost", "e-1") is None


def test_a_training_plan_nobody_bought_is_none(sagemaker: Port) -> None:
    assert sagemaker.training_plan("arn:aws:sagemaker:us-east-1:123456789012:training-plan/none") is None


@pytest.fixture
def acting(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    """The adapter with "hp" created and InService, two workers (node actions have no fake: only the workflow's
    phases call them, on the sandbox)."""
    yield from _created(request, GROUP)


def test_a_reboot_accepts_the_clusters_node_and_refuses_an_unknown_one_with_aws_code(acting: Adapter) -> None:
    node, ghost = acting.list_nodes("hp")[0].node_id, "i-00000000000000000"
    answer = acting.node_action("reboot", "hp", [node, ghost])
    assert answer.accepted == (node,)
    assert [(r["nodeId"], r["code"]) for r in answer.refused] == [(ghost, "InstanceIdNotFound")]
    assert answer.refused[0]["message"]


def test_a_health_check_names_its_group_and_nodes_and_an_unknown_group_is_refused(acting: Adapter) -> None:
    from launchpod.domain.nodes.actions import HealthCheckTarget

    node = acting.list_nodes("hp")[0].node_id
    acting.start_health_check("hp", ["InstanceStress"], [HealthCheckTarget("workers", (node,))])
    with pytest.raises(PermanentError, match="StartClusterHealthCheck failed"):
        acting.start_health_check("hp", ["InstanceStress"], [HealthCheckTarget("nobody")])
