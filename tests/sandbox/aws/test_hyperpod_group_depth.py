"""The sandbox's HyperPod for flexible groups, MinInstanceCount and AutoPatchConfig, as the API reference
describes them: refused where SageMaker refuses them, a minimum that makes a group InService before its
target, and Launchpod's whitelist keeping every one of these fields across an update of another group."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from launchpod.adapters.aws.instance_groups import instance_group_state, spec_from_details
from launchpod.domain.instance_groups import specs

from tests.sandbox.aws.hyperpod_support import (
    CONTINUOUS,
    create_hyperpod,
    error_of,
    fast_forward,
    instance_group,
    ready_cluster,
)
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")

TYPES = ["ml.g5.8xlarge", "ml.g5.12xlarge"]
FLEX = {
    **{k: v for k, v in instance_group("flex", count=2).items() if k != "InstanceType"},
    "InstanceRequirements": {"InstanceTypes": TYPES},
    "MinInstanceCount": 1,
    "AutoPatchConfig": {
        "PatchingStrategy": "DrainFirst",
        "DrainPolicy": {"DrainTimeoutInSeconds": 600, "OnDrainTimeout": "Skip"},
        "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}},
    },
    "ImageReleaseVersion": "1.2.3",
}


@pytest.fixture
def capacity_reset():
    from sandbox.aws.sagemaker import capacity

    yield capacity
    capacity.clear()


def _flex(sm: Any) -> dict[str, Any]:
    return next(g for g in sm.describe_cluster(ClusterName="hp")["InstanceGroups"] if g["InstanceGroupName"] == "flex")


REFUSED = [
    (FLEX, {}, "only supported when the NodeProvisioningMode is set to Continuous"),
    ({**FLEX, "InstanceType": "ml.g5.8xlarge"}, CONTINUOUS, "mutually exclusive"),
    ({**FLEX, "MinInstanceCount": 3}, CONTINUOUS, "cannot be greater than its InstanceCount 2"),
    (
        {**FLEX, "AutoPatchConfig": {"PatchingStrategy": "DrainFirst"}},
        CONTINUOUS,
        "DrainFirst of instance group flex requires MaximumBatchSize",
    ),
    (
        {**FLEX, "AutoPatchConfig": {"PatchingStrategy": "WhenIdle", "DrainPolicy": {}}},
        CONTINUOUS,
        "valid only when PatchingStrategy is DrainFirst",
    ),
]


def test_depth_fields_are_refused_where_sagemaker_refuses_them(sm, eks_arn):
    # one EKS cluster for every case: each CreateCluster is refused before anything is made
    for group, extra, says in REFUSED:
        with pytest.raises(ClientError) as refused:
            create_hyperpod(sm, eks_arn, group, **extra)
        assert error_of(refused)[0] == "ValidationException" and says in error_of(refused)[1], says


def test_a_group_with_a_minimum_is_in_service_with_that_many_and_keeps_waiting_for_the_rest(
    sm, eks_arn, capacity_reset
):
    # one instance of the last type in the zone, none of the first: the group gets one, and is InService
    capacity_reset.set_type_capacity("us-east-1a", TYPES[0], 0)
    capacity_reset.set_type_capacity("us-east-1a", TYPES[1], 1)
    fast_forward()
    create_hyperpod(sm, eks_arn, FLEX, **CONTINUOUS)
    wait_until(lambda: sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService", timeout=60)
    flex = _flex(sm)
    assert (flex["Status"], flex["CurrentCount"], flex["TargetCount"], flex["MinCount"]) == ("InService", 1, 2, 1)
    assert flex["InstanceTypeDetails"][1]["CurrentCount"] == 1
    nodes = sm.list_cluster_nodes(ClusterName="hp", InstanceGroupNameContains="flex")["ClusterNodeSummaries"]
    got = {n["InstanceStatus"]["Status"]: n["InstanceType"] for n in nodes}
    assert got == {"Running": TYPES[1], "Pending": TYPES[0]}  # the rest waits for capacity


def test_the_whitelist_keeps_a_flexible_groups_depth_fields_and_its_patch_date(sm, eks_arn):
    described = ready_cluster(sm, eks_arn, FLEX, instance_group("cpu", "ml.m5.2xlarge", count=1), **CONTINUOUS)
    flex = _flex(sm)
    patch = flex["AutoPatchConfig"]
    assert patch["CurrentPatchSchedule"] == patch["DesiredPatchSchedule"]
    assert flex["InstanceRequirements"]["DesiredInstanceTypes"] == TYPES
    cpu = next(g for g in described["InstanceGroups"] if g["InstanceGroupName"] == "cpu")
    scaled = {**spec_from_details(cpu), "InstanceCount": 2}
    groups = [instance_group_state(g) for g in described["InstanceGroups"]]
    sm.update_cluster(ClusterName="hp", InstanceGroups=specs.specs_for_update(groups, scaled))
    kept = spec_from_details(_flex(sm))
    assert kept.pop("AutoPatchConfig").pop("PatchSchedule") == patch["DesiredPatchSchedule"]
    assert {**kept, "AutoPatchConfig": FLEX["AutoPatchConfig"]} == {**FLEX, "ThreadsPerCore": 1}
    assert _flex(sm)["AutoPatchConfig"]["CurrentPatchSchedule"] == patch["CurrentPatchSchedule"]
