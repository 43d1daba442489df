"""Instance groups as a caller adds, changes and deletes them against an in-memory HyperPod: placement in a
zone that offers the type, the quota, Karpenter's groups left alone, one update at a time."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.domain.instance_groups import autoscaling
from launchpod.usecases import instance_groups as cases

from tests.fakes.ec2 import Ec2
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

ADMIN = ops.Principal("alice", Role.ADMIN)
GPU = {
    "InstanceGroupName": "gpu",
    "InstanceType": "ml.g5.8xlarge",
    "CurrentCount": 2,
    "TargetCount": 2,
    "Status": "InService",
    "ThreadsPerCore": 1,
}


def _cluster(status: str = "InService", **extra: Any) -> dict[str, Any]:
    return {
        "ClusterName": "train",
        "ClusterStatus": status,
        "VpcConfig": {"Subnets": ["subnet-a"]},
        "InstanceGroups": [GPU],
        **extra,
    }


def _ports(
    cluster: dict[str, Any] | None, quota: float | None = None, kube: Kube | None = None
) -> cases.InstanceGroupPorts:
    return cases.InstanceGroupPorts(
        operations=Operations(),
        workflows=Workflows(),
        sagemaker=SageMaker({"train": cluster} if cluster else {}),
        ec2=Ec2(
            ["us-east-1a", "us-east-1b"],
            {"g5.8xlarge": ["us-east-1a", "us-east-1b"], "c5.2xlarge": ["us-east-1b"]},
            {"subnet-a": "us-east-1a"},
        ),
        quotas=ServiceQuotas({} if quota is None else {"ml.g5.8xlarge for cluster usage": quota}),
        read=kube or Kube(),
        instances=Instances(),
    )


def test_a_group_of_a_type_without_efa_says_so_instead_of_efa() -> None:
    """NIC mode once read "EFA" for every group not EFA-only, an ml.m5.2xlarge included; EC2 says it has none."""
    cpu = {**GPU, "InstanceGroupName": "cpu", "InstanceType": "ml.m5.2xlarge"}
    listed = cases.list_instance_groups("train", ports=_ports(_cluster(InstanceGroups=[GPU, cpu])))
    assert [(g.instanceGroup, g.nicMode) for g in listed.items] == [("gpu", "efa"), ("cpu", "ena")]


def test_groups_are_listed_with_the_zone_of_their_subnet() -> None:
    listed = cases.list_instance_groups("train", ports=_ports(_cluster()))
    assert listed.clusterStatus == "InService"
    assert [(g.instanceGroup, g.availabilityZones) for g in listed.items] == [("gpu", ["us-east-1a"])]


def test_a_cluster_without_hyperpod_is_404() -> None:
    with pytest.raises(NotFound) as refused:
        cases.list_instance_groups("train", ports=_ports(None))
    assert str(refused.value) == "train has no HyperPod cluster; create one first, then try again."
    assert refused.value.details == [
        {"field": None, "rule": "next_step", "message": "POST /api/clusters/train/hyperpod"}
    ]


def test_a_new_group_goes_to_the_clusters_zone_with_the_types_default_threads_noted() -> None:
    ports = _ports(_cluster())
    request = AddInstanceGroupRequest(group="more", instanceType="ml.g5.8xlarge", instanceCount=1)
    accepted = cases.add_instance_group("train", request, ADMIN, ports=ports)
    assert accepted.operation.kind == ports.workflows.started[0][0]  # type: ignore[attr-defined]
    assert accepted.notes and accepted.notes[-1].startswith("threadsPerCore ")
    assert accepted.operation.request["zone"] == "us-east-1a"


def test_a_type_the_zone_does_not_offer_is_refused_naming_where_it_is() -> None:
    request = AddInstanceGroupRequest(group="cpu", instanceType="ml.c5.2xlarge", instanceCount=1)
    with pytest.raises(InvalidInput) as refused:
        cases.add_instance_group("train", request, ADMIN, ports=_ports(_cluster()))
    assert str(refused.value) == "Instance type ml.c5.2xlarge is not offered in us-east-1a; offered in us-east-1b."


def test_a_group_past_the_quota_is_refused_before_anything_starts() -> None:
    ports = _ports(_cluster(), quota=3)
    request = AddInstanceGroupRequest(group="more", instanceType="ml.g5.8xlarge", instanceCount=2)
    with pytest.raises(Conflict) as refused:
        cases.add_instance_group("train", request, ADMIN, ports=ports)
    assert "Raise it by 1 (to 4)" in str(refused.value)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_an_existing_name_with_another_type_or_a_busy_cluster_is_refused() -> None:
    request = AddInstanceGroupRequest(group="gpu", instanceType="ml.g5.12xlarge", instanceCount=2)
    with pytest.raises(Conflict) as exists:
        cases.add_instance_group("train", request, ADMIN, ports=_ports(_cluster()))
    assert [d["field"] for d in exists.value.details] == ["body.instanceType"]
    other = AddInstanceGroupRequest(group="gpu-2", instanceType="ml.g5.8xlarge", instanceCount=1)
    with pytest.raises(Conflict) as busy:
        cases.add_instance_group("train", other, ADMIN, ports=_ports(_cluster("Updating")))
    assert "HyperPod takes one update at a time" in str(busy.value)


def test_the_same_count_is_a_noop_and_a_new_one_starts_an_update() -> None:
    ports = _ports(_cluster())
    same = cases.update_instance_group("train", "gpu", UpdateInstanceGroupRequest(instanceCount=2), ADMIN, ports=ports)
    assert isinstance(same, NoopView) and same.message == "Instance group gpu already is as asked; no changes."
    more = cases.update_instance_group("train", "gpu", UpdateInstanceGroupRequest(instanceCount=3), ADMIN, ports=ports)
    assert isinstance(more, OperationView) and more.request["changes"] == {"instanceCount": 3}


def test_karpenters_group_cannot_be_scaled_by_hand_or_deleted() -> None:
    kube = Kube([autoscaling.node_class(["gpu"]), autoscaling.node_pool(300)])
    cluster = _cluster(AutoScaling={"Mode": "Enable", "Status": "InService"})
    ports = _ports(cluster, kube=kube)
    with pytest.raises(Conflict) as scaled:
        cases.update_instance_group("train", "gpu", UpdateInstanceGroupRequest(instanceCount=3), ADMIN, ports=ports)
    assert str(scaled.value).startswith("Karpenter manages instance group gpu, so it cannot be scaled by hand;")
    with pytest.raises(Conflict) as deleted:
        cases.delete_instance_group("train", "gpu", "gpu", ADMIN, ports=ports)
    assert str(deleted.value).startswith("Karpenter manages instance group gpu, so it cannot be deleted;")


def test_delete_needs_the_groups_name_typed_then_starts() -> None:
    ports = _ports(_cluster())
    with pytest.raises(InvalidInput) as refused:
        cases.delete_instance_group("train", "gpu", "", ADMIN, ports=ports)
    assert str(refused.value) == "Type the group's name, gpu, as confirm to delete it; its nodes are terminated."
    with pytest.raises(NotFound) as missing:
        cases.delete_instance_group("train", "tpu", "tpu", ADMIN, ports=ports)
    assert str(missing.value) == "train has no instance group tpu; it has gpu."
    assert cases.delete_instance_group("train", "gpu", "gpu", ADMIN, ports=ports).request["action"] == "delete"


FOREIGN = "arn:aws:iam::123456789012:role/their-hyperpod-nodes"


def test_on_an_imported_cluster_a_change_that_would_pass_a_foreign_role_is_refused_naming_it() -> None:
    ports = _ports(_cluster(InstanceGroups=[{**GPU, "ExecutionRole": FOREIGN}]))
    with pytest.raises(Conflict) as refused:
        cases.update_instance_group("train", "gpu", UpdateInstanceGroupRequest(instanceCount=3), ADMIN, ports=ports)
    assert FOREIGN in str(refused.value) and "only the roles it creates (launchpod-*)" in str(refused.value)
    add = AddInstanceGroupRequest(group="cpu", instanceType="ml.g5.8xlarge", instanceCount=1)
    with pytest.raises(Conflict, match="their-hyperpod-nodes"):
        cases.add_instance_group("train", add, ADMIN, ports=ports)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_deleting_the_only_group_with_a_foreign_role_passes_none_and_goes_ahead() -> None:
    ours = {**GPU, "InstanceGroupName": "cpu", "ExecutionRole": "arn:aws:iam::123456789012:role/launchpod-train-hp"}
    ports = _ports(_cluster(InstanceGroups=[{**GPU, "ExecutionRole": FOREIGN}, ours]))
    assert isinstance(cases.delete_instance_group("train", "gpu", "gpu", ADMIN, ports=ports), OperationView)
    with pytest.raises(Conflict, match="their-hyperpod-nodes"):
        cases.delete_instance_group("train", "cpu", "cpu", ADMIN, ports=ports)
