"""HyperPod-managed Karpenter: the NodePool validates against Karpenter's CRD, the node class names the
groups, the role may only add and remove this cluster's nodes, and what counts as no change."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.domain.errors import InvalidInput
from launchpod.domain.instance_groups import autoscaling

from tests import manifests

ARN = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefghijkl"


def test_the_node_pool_validates_against_karpenters_crd():
    pool = autoscaling.node_pool(300)
    assert manifests.errors(pool) == []
    assert pool["spec"]["template"]["spec"]["nodeClassRef"]["kind"] == "HyperpodNodeClass"


def test_the_role_may_only_add_and_remove_nodes_of_this_cluster():
    (statement,) = autoscaling.role_policy(ARN)["Statement"]
    assert statement["Resource"] == ARN
    assert statement["Action"] == ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"]


def test_managed_groups_start_at_zero_and_the_others_keep_their_count():
    specs = [{"InstanceGroupName": "gpu", "InstanceCount": 3}, {"InstanceGroupName": "cpu", "InstanceCount": 2}]
    assert autoscaling.managed_specs(specs, ["gpu"]) == [
        {"InstanceGroupName": "gpu", "InstanceCount": 0},
        {"InstanceGroupName": "cpu", "InstanceCount": 2},
    ]


def test_only_hyperpod_instance_groups_can_be_managed():
    request = AutoscalingInput(name="c", enabled=True, groups=["eks-nodegroup"])
    with pytest.raises(InvalidInput) as exc:
        autoscaling.check_groups(request, hyperpod_cluster_of({"InstanceGroups": [{"InstanceGroupName": "gpu"}]}))
    assert "HyperPod instance groups only" in exc.value.message


def test_no_change_when_already_as_asked():
    on = hyperpod_cluster_of({"AutoScaling": {"Mode": "Enable", "Status": "InService"}})
    klass, pool = autoscaling.node_class(["gpu"]), autoscaling.node_pool(300)
    request = AutoscalingInput(name="c", enabled=True, groups=["gpu"], consolidateAfterSeconds=300)
    assert autoscaling.is_noop(request, on, klass, pool)
    assert not autoscaling.is_noop(request.model_copy(update={"consolidateAfterSeconds": 60}), on, klass, pool)
    creating = hyperpod_cluster_of({"AutoScaling": {"Mode": "Enable", "Status": "Creating"}})
    assert not autoscaling.is_noop(request, creating, klass, pool)
    assert autoscaling.is_noop(AutoscalingInput(name="c", enabled=False), hyperpod_cluster_of({}), None, None)


def test_enabling_needs_groups_and_at_most_ten():
    with pytest.raises(ValueError, match="groups"):
        AutoscalingInput(name="c", enabled=True)
    with pytest.raises(ValueError):
        AutoscalingInput(name="c", enabled=True, groups=[f"g{i}" for i in range(11)])
