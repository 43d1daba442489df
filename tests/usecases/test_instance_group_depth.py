"""Flexible groups, a minimum count, automatic patching and the image, as a caller meets them against an
in-memory HyperPod: validated as AWS validates them, planned by the one planner (dry run, NOOP, fixed fields
refused by name), and shown in the group view."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from launchpod.adapters.aws.instance_groups import instance_group_state
from launchpod.contracts.common import Role
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from launchpod.contracts.operations import NoopView, OperationView
from launchpod.domain import operations as ops
from launchpod.domain.errors import InvalidInput
from launchpod.domain.instance_groups import changes, workflow
from launchpod.domain.instance_groups.views import group_view
from pydantic import ValidationError

from tests.fakes.ec2 import Ec2
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

ADMIN = ops.Principal("alice", Role.ADMIN)
DRY = ops.Principal("alice", Role.ADMIN, dry_run=True)
PATCH_DATE = datetime(2026, 12, 12, 3, 0, tzinfo=UTC)
FLEX = {
    "InstanceGroupName": "flex",
    "InstanceRequirements": {
        "CurrentInstanceTypes": ["ml.g5.8xlarge", "ml.g5.12xlarge"],
        "DesiredInstanceTypes": ["ml.g5.8xlarge", "ml.g5.12xlarge"],
    },
    "InstanceTypeDetails": [
        {"InstanceType": "ml.g5.8xlarge", "CurrentCount": 0},
        {"InstanceType": "ml.g5.12xlarge", "CurrentCount": 2},
    ],
    "CurrentCount": 2,
    "TargetCount": 2,
    "MinCount": 1,
    "Status": "InService",
    "ExecutionRole": "arn:aws:iam::123456789012:role/launchpod-train-hp",
    "AutoPatchConfig": {
        "PatchingStrategy": "WhenIdle",
        "IdleWaitWindowInSeconds": 86400,
        "CurrentPatchSchedule": {"NextPatchDate": PATCH_DATE},
        "DesiredPatchSchedule": {"NextPatchDate": PATCH_DATE},
    },
    "CurrentImageReleaseVersion": "1.2.3",
    "DesiredImageReleaseVersion": "1.2.3",
}
SINGLE = {**FLEX, "InstanceGroupName": "gpu", "InstanceType": "ml.g5.8xlarge", "MinCount": None}
for key in ("InstanceRequirements", "InstanceTypeDetails", "AutoPatchConfig"):
    SINGLE.pop(key)


def _ports(mode: str | None = "Continuous") -> Any:
    cluster = {
        "ClusterName": "train",
        "ClusterStatus": "InService",
        "VpcConfig": {"Subnets": ["subnet-a"]},
        "InstanceGroups": [FLEX, SINGLE],
        **({"NodeProvisioningMode": mode} if mode else {}),
    }
    from launchpod.usecases import instance_groups as cases

    return cases, cases.InstanceGroupPorts(
        operations=Operations(),
        workflows=Workflows(),
        sagemaker=SageMaker({"train": cluster}),
        ec2=Ec2(
            ["us-east-1a", "us-east-1b"],
            {"g5.8xlarge": ["us-east-1a"], "g5.12xlarge": ["us-east-1a"], "c5.2xlarge": ["us-east-1b"]},
            {"subnet-a": "us-east-1a"},
        ),
        quotas=ServiceQuotas({}),
        read=Kube(),
        instances=Instances(),
    )


NEW = {
    "group": "more",
    "instanceTypes": ["ml.g5.12xlarge", "ml.g5.8xlarge"],
    "instanceCount": 4,
    "minInstanceCount": 2,
    "autoPatch": {
        "strategy": "DrainFirst",
        "drain": {"drainTimeoutSeconds": 600},
        "maxBatchSize": {"type": "INSTANCE_COUNT", "value": 1},
    },
    "imageReleaseVersion": "1.2.3",
}


def test_a_flexible_group_is_planned_in_order_and_specified_as_aws_takes_it() -> None:
    cases, ports = _ports()
    request = AddInstanceGroupRequest.model_validate(NEW)
    with pytest.raises(ops.Planned) as planned:
        cases.add_instance_group("train", request, DRY, ports=ports)
    assert planned.value.steps[0].reason.startswith(
        "UpdateCluster adds it: 4 x ml.g5.12xlarge or else ml.g5.8xlarge in us-east-1a, onDemand, InService from 2, "
        "patched DrainFirst"
    )
    assert ports.workflows.started == []
    accepted = cases.add_instance_group("train", request, ADMIN, ports=ports)
    sent = AddInstanceGroupRequest.model_validate(accepted.operation.request["add"])
    spec = changes.new_group_spec(
        sent, execution_role="r", lifecycle=None, subnet_ids=None, security_group_ids=[], threads_per_core=1
    )
    assert "InstanceType" not in spec
    assert spec["InstanceRequirements"] == {"InstanceTypes": ["ml.g5.12xlarge", "ml.g5.8xlarge"]}
    assert (spec["MinInstanceCount"], spec["ImageReleaseVersion"]) == (2, "1.2.3")
    assert spec["AutoPatchConfig"] == {
        "PatchingStrategy": "DrainFirst",
        "DrainPolicy": {"DrainTimeoutInSeconds": 600, "OnDrainTimeout": "Skip"},
        "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}},
    }


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({**NEW, "instanceType": "ml.g5.8xlarge"}, "not both"),
        ({**NEW, "instanceTypes": ["ml.g5.8xlarge", "ml.g5.8xlarge"]}, "appears once"),
        ({**NEW, "instanceTypes": [f"ml.g5.{n}xlarge" for n in range(21)]}, "at most 20"),
        ({**NEW, "minInstanceCount": 5}, "minInstanceCount is at most instanceCount"),
        ({**NEW, "autoPatch": {"strategy": "DrainFirst"}}, "DrainFirst needs maxBatchSize"),
        ({**NEW, "autoPatch": {"strategy": "WhenIdle", "drain": {}}}, "DrainFirst only"),
        ({**NEW, "autoPatch": {"strategy": "WhenIdle", "idleWaitWindowSeconds": 60}}, "greater than or equal to 3600"),
        ({**NEW, "imageId": "ami-1234567z"}, "should match pattern"),
        ({**NEW, "imageReleaseVersion": "latest"}, "should match pattern"),
    ],
)
def test_depth_fields_are_refused_as_aws_refuses_them(body: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        AddInstanceGroupRequest.model_validate(body)


def test_flexible_groups_and_a_minimum_need_continuous_provisioning() -> None:
    cases, ports = _ports(mode=None)
    with pytest.raises(InvalidInput) as refused:
        cases.add_instance_group("train", AddInstanceGroupRequest.model_validate(NEW), ADMIN, ports=ports)
    assert refused.value.details[0] == {
        **refused.value.details[0],
        "field": "body.instanceTypes",
        "rule": "continuous_provisioning",
    }
    assert "create the cluster with nodeProvisioningMode Continuous" in str(refused.value)
    assert ports.workflows.started == []


def test_every_type_of_a_flexible_group_must_be_offered_in_its_zone() -> None:
    cases, ports = _ports()
    request = AddInstanceGroupRequest.model_validate({**NEW, "instanceTypes": ["ml.g5.8xlarge", "ml.c5.2xlarge"]})
    with pytest.raises(InvalidInput) as refused:
        cases.add_instance_group("train", request, ADMIN, ports=ports)
    assert refused.value.details[0]["field"] == "body.instanceTypes"
    assert str(refused.value).startswith(
        "Instance type ml.c5.2xlarge is not offered in us-east-1a; offered in us-east-1b."
    )


def test_the_same_patching_is_a_noop_though_hyperpod_set_a_patch_date() -> None:
    cases, ports = _ports()
    same = UpdateInstanceGroupRequest.model_validate({"autoPatch": {"strategy": "WhenIdle"}, "minInstanceCount": 1})
    assert isinstance(cases.update_instance_group("train", "flex", same, ADMIN, ports=ports), NoopView)


def test_a_new_patching_strategy_keeps_hyperpods_schedule_and_reorders_types() -> None:
    cases, ports = _ports()
    request = UpdateInstanceGroupRequest.model_validate(
        {"autoPatch": {"strategy": "WhenAllIdle"}, "instanceTypes": ["ml.g5.12xlarge", "ml.g5.8xlarge"]}
    )
    started = cases.update_instance_group("train", "flex", request, ADMIN, ports=ports)
    assert isinstance(started, OperationView)
    spec = changes.apply_changes(instance_group_state(FLEX), started.request["changes"])
    assert spec["AutoPatchConfig"]["PatchingStrategy"] == "WhenAllIdle"
    assert spec["AutoPatchConfig"]["PatchSchedule"] == {"NextPatchDate": PATCH_DATE}
    assert spec["InstanceRequirements"] == {"InstanceTypes": ["ml.g5.12xlarge", "ml.g5.8xlarge"]}
    assert (spec["MinInstanceCount"], "InstanceType" in spec) == (1, False)


def test_a_single_type_group_cannot_become_flexible_and_a_minimum_stays_under_the_count() -> None:
    cases, ports = _ports()
    flexible = UpdateInstanceGroupRequest(instanceTypes=["ml.g5.8xlarge", "ml.g5.12xlarge"])
    with pytest.raises(InvalidInput) as fixed:
        cases.update_instance_group("train", "gpu", flexible, ADMIN, ports=ports)
    assert (fixed.value.details[0]["field"], fixed.value.details[0]["rule"]) == (
        "body.instanceTypes",
        "immutable_field",
    )
    assert "fixed for the life of the group ('ml.g5.8xlarge')" in str(fixed.value)
    with pytest.raises(InvalidInput) as low:
        cases.update_instance_group("train", "flex", UpdateInstanceGroupRequest(minInstanceCount=3), ADMIN, ports=ports)
    assert (low.value.details[0]["field"], low.value.details[0]["rule"]) == ("body.minInstanceCount", "ordered")


def test_the_group_view_shows_each_types_count_the_minimum_and_the_next_patch() -> None:
    view = group_view(instance_group_state(FLEX), ["subnet-a"], {"subnet-a": "us-east-1a"}, dedicated=set())
    assert view.instanceTypes == ["ml.g5.8xlarge", "ml.g5.12xlarge"]
    assert view.typeCounts == {"ml.g5.8xlarge": 0, "ml.g5.12xlarge": 2}
    assert (view.minInstanceCount, view.imageReleaseVersion) == (1, "1.2.3")
    assert view.autoPatch is not None and view.autoPatch.nextPatchDate == PATCH_DATE
    assert (view.autoPatch.strategy, view.autoPatch.idleWaitWindowSeconds) == ("WhenIdle", 86400)


def test_a_group_with_a_minimum_is_done_once_that_many_run() -> None:
    partial = {**FLEX, "TargetCount": 4, "CurrentCount": 2, "MinCount": 2}
    assert workflow.wait_state("add", "flex", instance_group_state(partial)) == (True, None)
    assert workflow.wait_state("add", "flex", instance_group_state({**partial, "MinCount": None})) == (False, None)


def test_a_flexible_groups_instances_count_against_the_quota_of_the_type_they_run() -> None:
    from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
    from launchpod.domain.instance_groups import preflight

    clusters = [hyperpod_cluster_of({"ClusterName": "other", "InstanceGroups": [FLEX, SINGLE]})]
    assert preflight.usage(clusters, "ml.g5.12xlarge") == 2  # flex runs 2 of them
    assert preflight.usage(clusters, "ml.g5.8xlarge") == 2  # gpu's target; flex runs none
