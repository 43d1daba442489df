"""Karpenter's objects as the autoscaling route reads them to decide whether a request is a NOOP."""

from __future__ import annotations

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.domain.errors import RetryableError
from launchpod.domain.instance_groups import autoscaling
from launchpod.usecases.autoscaling import karpenter_objects

from tests.usecases.fakes import Kube

ON = {"ClusterStatus": "InService", "AutoScaling": {"Mode": "Enable", "Status": "InService"}}
ASKED = AutoscalingInput(name="train", enabled=True, groups=["gpu"], consolidateAfterSeconds=300)


def _applied() -> Kube:
    return Kube({"HyperpodNodeClass": autoscaling.node_class(["gpu"]), "NodePool": autoscaling.node_pool(300)})


def test_enabling_what_karpenter_already_runs_is_a_noop() -> None:
    klass, pool = karpenter_objects("train", ON, read=_applied())
    assert klass is not None and klass["spec"]["instanceGroups"] == ["gpu"]
    assert autoscaling.is_noop(ASKED, ON, klass, pool)


def test_another_group_on_the_same_objects_is_not_a_noop() -> None:
    other = AutoscalingInput(name="train", enabled=True, groups=["gpu", "cpu"], consolidateAfterSeconds=300)
    assert not autoscaling.is_noop(other, ON, *karpenter_objects("train", ON, read=_applied()))


def test_while_karpenter_kinds_are_not_readable_the_change_goes_ahead() -> None:
    kube = Kube({}, error=RetryableError("Could not reach the Kubernetes API of train."))
    assert karpenter_objects("train", ON, read=kube) == (None, None)
    assert not autoscaling.is_noop(ASKED, ON, None, None)


def test_with_autoscaling_off_kubernetes_is_not_read() -> None:
    kube = _applied()
    off = {"ClusterStatus": "InService", "AutoScaling": {"Mode": "Disable"}}
    assert karpenter_objects("train", off, read=kube) == (None, None)
    assert kube.reads == []
