"""MoveClusterNodes as the API reference describes it: the same instances leave one group and join another
(DetachInProgress, then AttachInProgress, then Running), counts follow, the training plan's usage does not
change; refusals for clusters without continuous provisioning, nodes of another type, and a replayed
client token with other parameters."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.sandbox.aws.hyperpod_support import (
    CONTINUOUS,
    cluster_nodes,
    error_of,
    fast_forward,
    instance_group,
    ready_cluster,
)
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")


def _counts(sm: Any) -> dict[str, tuple[int, int]]:
    groups = sm.describe_cluster(ClusterName="hp")["InstanceGroups"]
    return {g["InstanceGroupName"]: (g["CurrentCount"], g["TargetCount"]) for g in groups}


def test_moved_nodes_keep_their_instances_and_join_the_target_group(sm, eks_arn):
    arn = ready_cluster(sm, eks_arn, instance_group("train", count=3), instance_group("infer", count=0), **CONTINUOUS)[
        "ClusterArn"
    ]
    moving = sorted(n["InstanceId"] for n in cluster_nodes(sm))[:2]
    params = dict(SourceClusterArn=arn, SourceInstanceGroupName="train", TargetClusterArn=arn)
    answer = sm.move_cluster_nodes(**params, TargetInstanceGroupName="infer", NodeIds=moving, ClientToken="night-1")
    assert answer["Successful"] == moving and "Failed" not in answer
    statuses = {n["InstanceId"]: (n["InstanceGroupName"], n["InstanceStatus"]["Status"]) for n in cluster_nodes(sm)}
    assert {statuses[i] for i in moving} == {("train", "DetachInProgress")}
    # replayed with the same token: the first answer, nothing moved again; other parameters: refused
    again = sm.move_cluster_nodes(**params, TargetInstanceGroupName="infer", NodeIds=moving, ClientToken="night-1")
    assert again["Successful"] == moving
    with pytest.raises(ClientError) as reused:
        sm.move_cluster_nodes(**params, TargetInstanceGroupName="infer", InstanceCount=1, ClientToken="night-1")
    assert "different parameters" in error_of(reused)[1]
    fast_forward()
    wait_until(lambda: sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService", timeout=60)
    after = {n["InstanceId"]: n["InstanceGroupName"] for n in cluster_nodes(sm)}
    assert {after[i] for i in moving} == {"infer"} and len(after) == 3  # the same instances, none new
    assert _counts(sm) == {"train": (1, 1), "infer": (2, 2)}


def test_a_move_is_refused_without_continuous_provisioning_and_per_node_for_another_type(sm, eks_arn):
    arn = ready_cluster(sm, eks_arn, instance_group("train", count=1), instance_group("cpu", "ml.m5.2xlarge", count=0))[
        "ClusterArn"
    ]
    node = cluster_nodes(sm)[0]["InstanceId"]
    params = dict(SourceClusterArn=arn, SourceInstanceGroupName="train", TargetClusterArn=arn)
    with pytest.raises(ClientError) as refused:
        sm.move_cluster_nodes(**params, TargetInstanceGroupName="cpu", NodeIds=[node])
    assert "Continuous" in error_of(refused)[1]
    sm.update_cluster(ClusterName="hp", NodeProvisioningMode="Continuous")
    fast_forward()
    wait_until(lambda: sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService", timeout=60)
    with pytest.raises(ClientError) as mismatch:
        sm.move_cluster_nodes(**params, TargetInstanceGroupName="cpu", NodeIds=[node])
    assert "ml.p5.48xlarge" in error_of(mismatch)[1]  # none can move: the request fails with the node's reason
