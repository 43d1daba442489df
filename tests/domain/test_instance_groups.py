"""The explicit diff of an instance-group change and the specification of a new group."""

from __future__ import annotations

from dataclasses import replace

import pytest
from launchpod.adapters.aws.instance_groups import instance_group_state
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups import changes, placement, preflight
from launchpod.domain.quotas import Quota
from launchpod.domain.training_plans import Reservation, TrainingPlan

from tests.instance_facts import facts

# the group as DescribeCluster answers it, read as the adapter reads it
DESCRIBED = {
    "InstanceGroupName": "gpu",
    "InstanceType": "ml.p5.48xlarge",
    "TargetCount": 2,
    "CurrentCount": 2,
    "Status": "InService",
    "ExecutionRole": "arn:aws:iam::123456789012:role/exec",
    "CapacityRequirements": {"Spot": {}},
    "NetworkInterface": {"InterfaceType": "efa-only"},
    "KubernetesConfig": {"CurrentLabels": {"team": "nlp"}, "DesiredLabels": {"team": "nlp"}},
    "ImageVersionStatus": "Current",
}
DETAILS = instance_group_state(DESCRIBED)


def _diff(**sent):
    return changes.diff(UpdateInstanceGroupRequest(**sent), DETAILS, ["subnet-1"])


def test_sending_what_already_is_changes_nothing():
    assert _diff(instanceCount=2, labels={"team": "nlp"}, capacityType="spot", efaOnly=True, subnetId="subnet-1") == {}


def test_only_the_fields_that_differ_are_changed():
    assert _diff(instanceCount=4, labels={"team": "nlp"}) == {"instanceCount": 4}


@pytest.mark.parametrize(
    ("field", "value"),
    [("capacityType", "onDemand"), ("efaOnly", False), ("instanceType", "ml.p5en.48xlarge"), ("subnetId", "subnet-2")],
)
def test_a_fixed_field_with_another_value_is_refused_by_name(field, value):
    with pytest.raises(InvalidInput) as exc:
        _diff(**{field: value})
    assert exc.value.details[0]["field"] == f"body.{field}" and "add a new instance group" in exc.value.message


def _add_again(**sent):
    body = {"group": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2, **sent}
    return changes.add_again(AddInstanceGroupRequest(**body), DETAILS, ["subnet-1"])


def test_adding_a_group_that_is_there_as_asked_is_noop_and_a_difference_is_refused_naming_it():
    _add_again(capacityType="spot", efaOnly=True, labels={"team": "nlp"})  # returns: nothing to do
    _add_again()  # only the sent fields are compared: defaults are not the caller's words
    with pytest.raises(Conflict) as count:
        _add_again(capacityType="spot", efaOnly=True, instanceCount=3)
    assert [d["field"] for d in count.value.details] == ["body.instanceCount"] and "PATCH" in count.value.message
    with pytest.raises(Conflict) as fixed:
        _add_again(efaOnly=True, capacityType="onDemand")
    assert [d["field"] for d in fixed.value.details] == ["body.capacityType"]
    assert "fixed for the life of the group" in fixed.value.message


def test_adding_a_group_again_in_another_zone_or_subnet_is_refused_naming_where_it_is():
    placed = {"availabilityZone": "us-east-1a", "dedicatedSubnet": False}
    body = {"group": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2}
    changes.add_again(AddInstanceGroupRequest(**body, availabilityZone="us-east-1a"), DETAILS, ["subnet-1"], placed)
    with pytest.raises(Conflict) as zone:
        changes.add_again(AddInstanceGroupRequest(**body, availabilityZone="us-east-1b"), DETAILS, ["subnet-1"], placed)
    assert [d["field"] for d in zone.value.details] == ["body.availabilityZone"]
    assert "'us-east-1a', not 'us-east-1b'" in zone.value.message and "another name" in zone.value.message
    with pytest.raises(Conflict) as subnet:
        changes.add_again(AddInstanceGroupRequest(**body, dedicatedSubnet=True), DETAILS, ["subnet-1"], placed)
    assert [d["field"] for d in subnet.value.details] == ["body.dedicatedSubnet"]
    # a training plan puts its group in the plan's zone whatever was asked: the zone asked is not compared
    plan = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p"
    with_plan = instance_group_state({**DESCRIBED, "TrainingPlanArn": plan})
    again = AddInstanceGroupRequest(
        **body, capacityType="trainingPlan", trainingPlanArn=plan, availabilityZone="us-east-1b"
    )
    changes.add_again(again, with_plan, ["subnet-1"], placed)


def test_a_change_keeps_every_other_field_of_the_group():
    spec = changes.apply_changes(DETAILS, {"instanceCount": 3, "taints": [{"key": "a", "effect": "NoSchedule"}]})
    assert spec["InstanceCount"] == 3 and spec["CapacityRequirements"] == {"Spot": {}}
    assert spec["KubernetesConfig"] == {"Labels": {"team": "nlp"}, "Taints": [{"Key": "a", "Effect": "NoSchedule"}]}
    assert spec["NetworkInterface"] == {"InterfaceType": "efa-only"}


def test_a_new_spot_group_gets_spot_capacity_and_its_own_subnet():
    request = AddInstanceGroupRequest(group="g", instanceType="ml.p5.48xlarge", instanceCount=0, capacityType="spot")
    spec = changes.new_group_spec(
        request,
        execution_role="arn:r",
        lifecycle=None,
        subnet_ids=["subnet-9"],
        security_group_ids=["sg-1"],
        threads_per_core=placement.threads_per_core(facts("ml.p5.48xlarge")),
    )
    assert spec["CapacityRequirements"] == {"Spot": {}} and spec["InstanceCount"] == 0 and spec["ThreadsPerCore"] == 1
    assert spec["OverrideVpcConfig"] == {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-9"]}


def test_training_plan_capacity_needs_its_arn():
    with pytest.raises(ValueError, match="trainingPlanArn"):
        AddInstanceGroupRequest(group="g", instanceType="ml.p5.48xlarge", instanceCount=1, capacityType="trainingPlan")


PLAN = TrainingPlan(
    "p5",
    "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5",
    status="Active",
    total_instance_count=4,
    available_instance_count=2,
    reservation=Reservation(instance_type="ml.p5.48xlarge", zone="us-east-1b"),
)


def _planned(**extra):
    return AddInstanceGroupRequest(
        group="tp",
        instanceType="ml.p5.48xlarge",
        instanceCount=2,
        capacityType="trainingPlan",
        trainingPlanArn="arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5",
        **extra,
    )


def test_the_training_plans_zone_wins_and_the_notes_say_so():
    placed = preflight.training_plan_placement(
        _planned(availabilityZone="us-east-1a"), PLAN, "us-east-1a", "us-east-1a"
    )
    assert placed.zone == "us-east-1b" and placed.dedicated_subnet
    assert "us-east-1b wins over the us-east-1a" in placed.notes[0]


@pytest.mark.parametrize(
    ("request_extra", "plan", "field"),
    [
        ({"instanceCount": 3}, PLAN, "body.instanceCount"),
        ({"instanceType": "ml.p5en.48xlarge"}, PLAN, "body.instanceType"),
        ({}, None, "body.trainingPlanArn"),
        ({}, replace(PLAN, status="Expired"), "body.trainingPlanArn"),
    ],
)
def test_a_plan_that_cannot_serve_the_group_is_refused_by_field(request_extra, plan, field):
    request = _planned().model_copy(update=request_extra)
    with pytest.raises(InvalidInput) as exc:
        preflight.training_plan_placement(request, plan, "us-east-1b", "us-east-1b")
    assert exc.value.details[0]["field"] == field


def test_a_quota_shortfall_names_the_quota_and_how_much_to_raise_it():
    quota = Quota(name="ml.p5.48xlarge for cluster usage", code="L-1234", value=4)
    preflight.check_quota("ml.p5.48xlarge", quota, used=2, delta=2)
    with pytest.raises(Conflict) as exc:
        preflight.check_quota("ml.p5.48xlarge", quota, used=3, delta=3)
    assert "'ml.p5.48xlarge for cluster usage'" in exc.value.message and "Raise it by 2 (to 6)" in exc.value.message


def test_usage_counts_every_cluster_but_the_group_being_changed():
    clusters = [
        HyperPodCluster(
            "a", "arn-a", "InService", instance_groups=(InstanceGroupState("g", "InService", "t", target_count=2),)
        ),
        HyperPodCluster(
            "b", "arn-b", "InService", instance_groups=(InstanceGroupState("g", "InService", "t", target_count=3),)
        ),
    ]
    assert preflight.usage(clusters, "t") == 5 and preflight.usage(clusters, "t", skip=("a", "g")) == 3


def test_a_group_shows_its_minimum_count_and_the_image_its_nodes_run_as_describe_cluster_reports_them():
    from launchpod.domain.instance_groups.views import group_view

    details = {
        "InstanceGroupName": "gpu",
        "InstanceType": "ml.p5.48xlarge",
        "CurrentCount": 3,
        "TargetCount": 4,
        "MinCount": 2,
        "Status": "InService",
        "CurrentImageReleaseVersion": "2025.12.01",
    }
    view = group_view(instance_group_state(details), ["subnet-a"], {"subnet-a": "us-east-1a"}, dedicated=set())
    assert (view.currentCount, view.targetCount, view.minInstanceCount) == (3, 4, 2)
    assert view.imageVersion == "2025.12.01" and view.availabilityZones == ["us-east-1a"]
    custom = group_view(
        instance_group_state({**details, "CurrentImageReleaseVersion": None, "CurrentImageId": "ami-0abc"}),
        [],
        {},
        dedicated=set(),
    )
    assert custom.imageVersion == "ami-0abc"
