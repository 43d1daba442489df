"""GPU partitions (MIG) of an instance group through the API: a layout the type's GPUs take becomes the
group's nvidia.com/mig.config label, the listing says what each node advertises, and a change is refused while
pods on the group's nodes use its GPUs (HyperPod partitions only drained nodes)."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups import changes
from launchpod.usecases import instance_groups as cases
from pydantic import ValidationError

from tests.fakes.ec2 import Ec2
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube
from tests.fakes.kube_listing import KubeLists
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

ADMIN = ops.Principal("alice", Role.ADMIN)
GROUP = "sagemaker.amazonaws.com/instance-group-name"
H100 = {
    "InstanceGroupName": "h100",
    "InstanceType": "ml.p5.48xlarge",
    "CurrentCount": 1,
    "TargetCount": 1,
    "Status": "InService",
    "KubernetesConfig": {"DesiredLabels": {"nvidia.com/mig.config": "all-1g.10gb", "team": "serving"}},
}


def _ports(lists: KubeLists | None = None) -> cases.InstanceGroupPorts:
    cluster = {"ClusterName": "train", "ClusterStatus": "InService", "VpcConfig": {"Subnets": ["subnet-a"]}}
    return cases.InstanceGroupPorts(
        operations=Operations(),
        workflows=Workflows(),
        sagemaker=SageMaker({"train": {**cluster, "InstanceGroups": [H100]}}),
        ec2=Ec2(
            ["us-east-1a"], {"p5.48xlarge": ["us-east-1a"], "g5.8xlarge": ["us-east-1a"]}, {"subnet-a": "us-east-1a"}
        ),
        quotas=ServiceQuotas({}),
        read=Kube(),
        instances=Instances(),
        kube=lists or KubeLists(),
    )


def _pod(name: str, node: str, resources: dict[str, Any], phase: str = "Running") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "serving"},
        "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"limits": resources}}]},
        "status": {"phase": phase},
    }


def test_a_mix_the_gpu_takes_becomes_the_groups_label_and_the_plan_names_it() -> None:
    ports = _ports()
    request = AddInstanceGroupRequest(
        group="mixed",
        instanceType="ml.p5.48xlarge",
        instanceCount=1,
        mig={"mode": "mixed", "perGpu": {"mig-4g.40gb": 1, "mig-1g.10gb": 3}},
    )
    with pytest.raises(ops.Planned) as planned:
        cases.add_instance_group("train", request, ops.Principal("alice", Role.ADMIN, dry_run=True), ports=ports)
    assert "GPUs partitioned as mixed-3-1g.10gb-1-4g.40gb" in planned.value.steps[0].reason
    spec = changes.new_group_spec(
        request, execution_role="r", lifecycle=None, subnet_ids=None, security_group_ids=[], threads_per_core=2
    )
    assert spec["KubernetesConfig"]["Labels"] == {"nvidia.com/mig.config": "mixed-3-1g.10gb-1-4g.40gb"}


@pytest.mark.parametrize(
    ("instance_type", "layout", "said"),
    [
        (
            "ml.p5.48xlarge",
            {"mode": "single", "acceleratorPartitionType": "mig-1g.5gb"},
            "ml.p5.48xlarge does not offer mig-1g.5gb",
        ),
        (
            "ml.g5.8xlarge",
            {"mode": "single", "acceleratorPartitionType": "mig-1g.10gb"},
            "ml.g5.8xlarge's GPUs cannot be partitioned",
        ),
        (
            "ml.p5.48xlarge",
            {"mode": "mixed", "perGpu": {"mig-3g.40gb": 2, "mig-1g.10gb": 1}},
            "mixed-1-1g.10gb-2-3g.40gb is not a mix HyperPod's default-mig-config ships for ml.p5.48xlarge",
        ),
    ],
)
def test_a_layout_the_types_gpus_cannot_take_is_refused_before_anything_starts(
    instance_type: str, layout: dict[str, Any], said: str
) -> None:
    ports = _ports()
    request = AddInstanceGroupRequest(group="new", instanceType=instance_type, instanceCount=1, mig=layout)
    with pytest.raises(InvalidInput) as refused:
        cases.add_instance_group("train", request, ADMIN, ports=ports)
    assert str(refused.value).startswith(said)
    assert refused.value.details[0]["field"].startswith("body.mig.")
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_a_flexible_group_or_mig_beside_its_label_is_refused_by_the_contract() -> None:
    with pytest.raises(ValidationError, match="flexible groups cannot be partitioned"):
        AddInstanceGroupRequest(
            group="flex",
            instanceTypes=["ml.p5.48xlarge", "ml.p5e.48xlarge"],
            instanceCount=1,
            mig={"mode": "single", "acceleratorPartitionType": "mig-7g.80gb"},
        )
    with pytest.raises(ValidationError, match="not both"):
        UpdateInstanceGroupRequest(mig={"mode": "disabled"}, labels={"nvidia.com/mig.config": "all-1g.10gb"})


def test_the_listing_says_what_each_node_of_a_mig_group_advertises() -> None:
    (group,) = cases.list_instance_groups("train", ports=_ports()).items
    assert group.mig is not None
    assert (group.mig.mode, group.mig.perGpu, group.mig.perNode) == ("single", {"mig-1g.10gb": 7}, {"mig-1g.10gb": 56})


def test_a_new_profile_keeps_the_other_labels_and_the_same_one_is_a_noop() -> None:
    ports = _ports()
    same = UpdateInstanceGroupRequest(mig={"mode": "single", "acceleratorPartitionType": "mig-1g.10gb"})
    assert isinstance(cases.update_instance_group("train", "h100", same, ADMIN, ports=ports), NoopView)
    whole = cases.update_instance_group(
        "train", "h100", UpdateInstanceGroupRequest(mig={"mode": "disabled"}), ADMIN, ports=ports
    )
    assert isinstance(whole, OperationView)
    assert whole.request["changes"] == {"labels": {"nvidia.com/mig.config": "all-disabled", "team": "serving"}}


def test_a_change_while_pods_use_the_groups_gpus_is_refused_naming_them() -> None:
    nodes = [
        {"metadata": {"name": "hyperpod-i-1", "labels": {GROUP: "h100"}}},
        {"metadata": {"name": "hyperpod-i-2", "labels": {GROUP: "other"}}},
    ]
    pods = [
        _pod("chat-0", "hyperpod-i-1", {"nvidia.com/mig-1g.10gb": "1"}),
        _pod("done", "hyperpod-i-1", {"nvidia.com/mig-1g.10gb": "1"}, phase="Succeeded"),
        _pod("logs", "hyperpod-i-1", {"cpu": "1"}),
        _pod("elsewhere", "hyperpod-i-2", {"nvidia.com/gpu": "8"}),
    ]
    ports = _ports(KubeLists({"Node": nodes, "Pod": pods}))
    bigger = UpdateInstanceGroupRequest(mig={"mode": "single", "acceleratorPartitionType": "mig-3g.40gb"})
    with pytest.raises(Conflict) as refused:
        cases.update_instance_group("train", "h100", bigger, ADMIN, ports=ports)
    assert str(refused.value).startswith("Instance group h100's GPUs are in use by serving/chat-0; HyperPod")
    assert [d["message"] for d in refused.value.details] == ["pod serving/chat-0 uses GPUs"]
    assert ports.workflows.started == []  # type: ignore[attr-defined]
    count = cases.update_instance_group(
        "train", "h100", UpdateInstanceGroupRequest(instanceCount=2), ADMIN, ports=ports
    )
    assert isinstance(count, OperationView)  # other changes go ahead while the partitions are in use
