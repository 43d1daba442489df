"""Karpenter's objects as the autoscaling route reads them to decide whether a request is a NOOP."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.common import Role
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, RetryableError
from launchpod.domain.instance_groups import autoscaling
from launchpod.usecases.autoscaling import AutoscalingPorts, karpenter_objects, set_autoscaling

from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker

ON = {"ClusterStatus": "InService", "AutoScaling": {"Mode": "Enable", "Status": "InService"}}
ON_CLUSTER = hyperpod_cluster_of(ON)  # as the adapter reads DescribeCluster's answer
ASKED = AutoscalingInput(name="train", enabled=True, groups=["gpu"], consolidateAfterSeconds=300)


def _applied() -> Kube:
    return Kube([autoscaling.node_class(["gpu"]), autoscaling.node_pool(300)])


def test_enabling_what_karpenter_already_runs_is_a_noop() -> None:
    klass, pool = karpenter_objects("train", ON_CLUSTER, read=_applied())
    assert klass is not None and klass["spec"]["instanceGroups"] == ["gpu"]
    assert autoscaling.is_noop(ASKED, ON_CLUSTER, klass, pool)


def test_another_group_on_the_same_objects_is_not_a_noop() -> None:
    other = AutoscalingInput(name="train", enabled=True, groups=["gpu", "cpu"], consolidateAfterSeconds=300)
    assert not autoscaling.is_noop(other, ON_CLUSTER, *karpenter_objects("train", ON_CLUSTER, read=_applied()))


def test_while_karpenter_kinds_are_not_readable_the_change_goes_ahead() -> None:
    kube = Kube(error=RetryableError("Could not reach the Kubernetes API of train."))
    assert karpenter_objects("train", ON_CLUSTER, read=kube) == (None, None)
    assert not autoscaling.is_noop(ASKED, ON_CLUSTER, None, None)


def test_with_autoscaling_off_kubernetes_is_not_read() -> None:
    kube = _applied()
    off = hyperpod_cluster_of({"ClusterStatus": "InService", "AutoScaling": {"Mode": "Disable"}})
    assert karpenter_objects("train", off, read=kube) == (None, None)
    assert kube.reads == []


# ---------------------------------------------------------------------------- PUT /api/clusters/{name}/autoscaling

ADMIN = ops.Principal("alice", Role.ADMIN)
GROUPS = {
    "NodeProvisioningMode": "Continuous",
    "InstanceGroups": [
        {"InstanceGroupName": "gpu", "CurrentCount": 0, "TargetCount": 0},
        {"InstanceGroupName": "cpu", "CurrentCount": 0, "TargetCount": 0},
        {"InstanceGroupName": "system", "CurrentCount": 1, "TargetCount": 1},
    ],
}
OFF = {"ClusterStatus": "InService"}


def _ports(described: dict[str, Any] | None, kube: Kube | None = None) -> AutoscalingPorts:
    return AutoscalingPorts(
        operations=Operations(),
        workflows=Workflows(),
        sagemaker=SageMaker({"train": {"ClusterName": "train", **described}} if described else {}),
        read=kube or _applied(),
    )


def test_asking_for_what_karpenter_already_runs_starts_nothing_and_says_so() -> None:
    ports = _ports({**ON, **GROUPS})
    done = set_autoscaling(ASKED, ADMIN, ports=ports)
    assert isinstance(done, NoopView) and done.message == "Autoscaling is already on for gpu; no changes."
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_a_group_the_cluster_lacks_is_refused_naming_those_it_has() -> None:
    asked = AutoscalingInput(name="train", enabled=True, groups=["tpu"], consolidateAfterSeconds=300)
    with pytest.raises(InvalidInput) as refused:
        set_autoscaling(asked, ADMIN, ports=_ports({**ON, **GROUPS}))
    assert str(refused.value).startswith("train has no instance group tpu; it has gpu, cpu, system.")


def test_a_change_while_hyperpod_is_updating_is_refused() -> None:
    other = AutoscalingInput(name="train", enabled=True, groups=["gpu", "cpu"], consolidateAfterSeconds=300)
    with pytest.raises(Conflict) as refused:
        set_autoscaling(other, ADMIN, ports=_ports({**ON, **GROUPS, "ClusterStatus": "Updating"}))
    assert str(refused.value) == "The HyperPod cluster train is Updating; change autoscaling once it is InService."


def test_a_change_on_an_in_service_cluster_starts_set_autoscaling() -> None:
    other = AutoscalingInput(name="train", enabled=True, groups=["gpu", "cpu"], consolidateAfterSeconds=300)
    ports = _ports({**ON, **GROUPS})
    done = set_autoscaling(other, ADMIN, ports=ports)
    assert isinstance(done, OperationView) and done.target == "train"
    assert [w for w, _, _ in ports.workflows.started] == [done.kind]  # type: ignore[attr-defined]


def test_without_a_hyperpod_cluster_autoscaling_is_404_with_how_to_create_it() -> None:
    with pytest.raises(NotFound) as refused:
        set_autoscaling(ASKED, ADMIN, ports=_ports(None))
    assert str(refused.value) == "train has no HyperPod cluster; create one first, then try again."
    assert refused.value.details == [
        {"field": None, "rule": "next_step", "message": "POST /api/clusters/train/hyperpod"}
    ]


def _groups(**changed: dict[str, Any]) -> dict[str, Any]:
    return {
        **GROUPS,
        "InstanceGroups": [{**g, **changed.get(g["InstanceGroupName"], {})} for g in GROUPS["InstanceGroups"]],
    }


def test_enabling_on_a_cluster_created_without_continuous_provisioning_is_refused_with_what_to_do() -> None:
    ports = _ports({**OFF, **GROUPS, "NodeProvisioningMode": None})
    with pytest.raises(Conflict) as refused:
        set_autoscaling(ASKED, ADMIN, ports=ports)
    assert "AWS sets when a cluster is created" in str(refused.value)
    assert "Create a cluster with nodeProvisioningMode Continuous" in str(refused.value)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("changed", "why"),
    [
        ({"TrainingPlanArn": "arn:aws:sagemaker:us-east-1:1:training-plan/p"}, "gpu runs on a training plan"),
        ({"OnStartDeepHealthChecks": ["InstanceStress"]}, "gpu runs deep health checks on start"),
    ],
)
def test_groups_hyperpods_karpenter_does_not_support_are_refused(changed: dict[str, Any], why: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        set_autoscaling(ASKED, ADMIN, ports=_ports({**OFF, **_groups(gpu=changed)}))
    assert why in str(refused.value) and refused.value.details[0]["field"] == "body.instanceGroups"


def test_a_group_with_running_nodes_is_refused_until_the_request_confirms_they_go() -> None:
    running = _groups(gpu={"CurrentCount": 2, "TargetCount": 2})
    ports = _ports({**OFF, **running})
    with pytest.raises(InvalidInput) as refused:
        set_autoscaling(ASKED, ADMIN, ports=ports)
    assert "the nodes of gpu (2 nodes) would be terminated" in str(refused.value)
    assert refused.value.details[0]["field"] == "body.confirmScaleToZero"
    assert ports.workflows.started == []  # type: ignore[attr-defined]
    confirmed = ASKED.model_copy(update={"confirmScaleToZero": ["gpu"]})
    assert isinstance(set_autoscaling(confirmed, ADMIN, ports=ports), OperationView)


def test_confirming_a_group_the_request_does_not_autoscale_is_invalid() -> None:
    with pytest.raises(ValueError, match="confirmScaleToZero names cpu"):
        AutoscalingInput(name="train", enabled=True, groups=["gpu"], confirmScaleToZero=["cpu"])


def test_leaving_no_group_with_a_node_outside_karpenter_is_refused_for_the_system_pods() -> None:
    every = AutoscalingInput(name="train", enabled=True, groups=["gpu", "cpu", "system"], confirmScaleToZero=["system"])
    with pytest.raises(InvalidInput) as refused:
        set_autoscaling(every, ADMIN, ports=_ports({**OFF, **GROUPS}))
    assert "leaving no node for the system pods" in str(refused.value)
    idle_system = _ports({**OFF, **_groups(system={"CurrentCount": 0, "TargetCount": 0})})
    with pytest.raises(InvalidInput, match="Keep a group outside autoscaling with at least 1 node"):
        set_autoscaling(ASKED, ADMIN, ports=idle_system)


def test_enabling_on_an_imported_cluster_whose_groups_run_as_foreign_roles_is_refused_naming_them() -> None:
    foreign = "arn:aws:iam::123456789012:role/their-hyperpod-nodes"
    ports = _ports({**OFF, **_groups(system={"ExecutionRole": foreign})})
    with pytest.raises(Conflict) as refused:
        set_autoscaling(ASKED, ADMIN, ports=ports)
    assert foreign in str(refused.value) and "iam:PassRole" in str(refused.value)
    assert ports.workflows.started == []  # type: ignore[attr-defined]
