"""UpdateCluster as HyperPod applies it: each listed group's specification replaces the old one, groups
are added and deleted, fixed fields are refused, one update at a time; and Launchpod's whitelist
rebuilds every group from DescribeCluster so an update to one group leaves the others as they were."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from launchpod.adapters.aws.instance_groups import instance_group_state, spec_from_details
from launchpod.domain.instance_groups import specs

from tests.sandbox.aws.hyperpod_support import (
    create_hyperpod,
    error_of,
    fast_forward,
    in_service,
    instance_group,
    ready_cluster,
)
from tests.sandbox.aws.support import ROLE_ARN, wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")

FULL = instance_group(
    "gpu",
    count=1,
    ThreadsPerCore=1,
    InstanceStorageConfigs=[{"EbsVolumeConfig": {"VolumeSizeInGB": 800}}],
    OnStartDeepHealthChecks=["InstanceStress"],
    OverrideVpcConfig={"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]},
    ScheduledUpdateConfig={"ScheduleExpression": "cron(0 3 ? * SUN *)"},
    ImageId="ami-0123456789abcdef0",
    KubernetesConfig={"Labels": {"team": "nlp"}, "Taints": [{"Key": "gpu", "Value": "true", "Effect": "NoSchedule"}]},
    CapacityRequirements={"Spot": {}},
    NetworkInterface={"InterfaceType": "efa-only"},
)


def _details(sm: Any, name: str) -> dict[str, Any]:
    cluster = sm.describe_cluster(ClusterName="hp")
    return next(g for g in cluster["InstanceGroups"] if g["InstanceGroupName"] == name)


def test_the_whitelist_rebuilds_every_field_a_group_was_created_with(sm, eks_arn):
    ready_cluster(sm, eks_arn, FULL)
    assert spec_from_details(_details(sm, "gpu")) == FULL


def test_updating_one_group_through_the_whitelist_keeps_every_field_of_the_others(sm, eks_arn):
    described = ready_cluster(sm, eks_arn, FULL, instance_group("cpu", "ml.m5.2xlarge", count=1))
    cpu = next(g for g in described["InstanceGroups"] if g["InstanceGroupName"] == "cpu")
    scaled = {**spec_from_details(cpu), "InstanceCount": 2}
    groups = [instance_group_state(g) for g in described["InstanceGroups"]]
    sm.update_cluster(ClusterName="hp", InstanceGroups=specs.specs_for_update(groups, scaled))
    fast_forward()
    in_service(sm)
    assert _details(sm, "cpu")["TargetCount"] == 2
    assert spec_from_details(_details(sm, "gpu")) == FULL


def test_a_group_sent_without_its_fields_loses_them(sm, eks_arn):
    """Why the whitelist exists: UpdateCluster applies a listed group's specification as given."""
    ready_cluster(sm, eks_arn, instance_group("gpu", count=1, KubernetesConfig={"Labels": {"team": "nlp"}}))
    sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("gpu", count=1)])
    assert "KubernetesConfig" not in _details(sm, "gpu")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"CapacityRequirements": {"OnDemand": {}}}, "capacity type"),
        ({"NetworkInterface": {"InterfaceType": "efa"}}, "network interface type"),
        (
            {"OverrideVpcConfig": {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0fedcba98765"]}},
            "subnets",
        ),
        ({"InstanceType": "ml.p5en.48xlarge"}, "instance type"),
    ],
)
def test_fixed_fields_of_an_existing_group_are_refused(sm, eks_arn, change, words):
    ready_cluster(sm, eks_arn, FULL)
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[{**FULL, **change}])
    code, message = error_of(exc_info)
    assert code == "ValidationException"
    assert f"The {words} of instance group gpu cannot be changed" in message and "Add a new instance group" in message


@pytest.mark.parametrize(
    ("kubernetes", "where"),
    [
        ({"Labels": {"-team./tier": "a"}}, "kubernetesConfig.labels.key"),
        ({"Labels": {"Example.com/tier": "a"}}, "kubernetesConfig.labels.key"),
        ({"Labels": {"tier": "a-"}}, "kubernetesConfig.labels.value"),
        ({"Taints": [{"Key": "gpu.", "Effect": "NoSchedule"}]}, "kubernetesConfig.taints.1.member.key"),
    ],
)
def test_labels_and_taints_sagemaker_refuses_are_refused(sm, eks_arn, kubernetes, where):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(
            ClusterName="hp",
            InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=1, KubernetesConfig=kubernetes)],
        )
    code, message = error_of(exc_info)
    assert code == "ValidationException" and f"instanceGroups.1.member.{where}" in message, message


def test_a_second_update_while_the_first_settles_is_refused(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=2)])
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=3)])
    code, message = error_of(exc_info)
    assert code == "ConflictException" and "Updating" in message


# ---------------------------------------------------------------------------------------- capacity


@pytest.fixture
def capacity_reset():
    from sandbox.aws.sagemaker import capacity

    yield capacity
    capacity.clear()


def _plan(sm: Any, zone: str, count: int = 2, name: str = "p5-week") -> str:
    offerings = sm.search_training_plan_offerings(
        InstanceType="ml.p5.48xlarge", InstanceCount=count, DurationHours=168, TargetResources=["hyperpod-cluster"]
    )["TrainingPlanOfferings"]
    offering = next(o for o in offerings if o["ReservedCapacityOfferings"][0]["AvailabilityZone"] == zone)
    return sm.create_training_plan(TrainingPlanName=name, TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])[
        "TrainingPlanArn"
    ]


def test_a_training_plan_serves_its_type_zone_and_count_only(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    here, there = _plan(sm, "us-east-1a"), _plan(sm, "us-east-1b", name="p5-b")
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("tp", count=1, TrainingPlanArn=there)])
    assert "reserves capacity in us-east-1b" in error_of(exc_info)[1]
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("tp", count=3, TrainingPlanArn=here)])
    assert "2 of its 2 instances available" in error_of(exc_info)[1]
    sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("tp", count=2, TrainingPlanArn=here)])
    fast_forward()
    in_service(sm)
    plan = sm.describe_training_plan(TrainingPlanName="p5-week")
    assert (plan["InUseInstanceCount"], plan["AvailableInstanceCount"], plan["Status"]) == (2, 0, "Active")
    assert _details(sm, "tp")["TrainingPlanStatus"] == "Active"


def test_the_cluster_usage_quota_is_listed_and_enforced(sm, eks_arn, client, capacity_reset):
    ready_cluster(sm, eks_arn, instance_group("gpu", count=1))
    capacity_reset.set_quota("ml.p5.48xlarge", 2)
    quotas = client("service-quotas").list_service_quotas(ServiceCode="sagemaker")["Quotas"]
    quota = next(q for q in quotas if q["QuotaName"] == "ml.p5.48xlarge for cluster usage")
    assert quota["Value"] == 2
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("gpu", count=3)])
    code, message = error_of(exc_info)
    assert code == "ResourceLimitExceeded"
    assert "'ml.p5.48xlarge for cluster usage' is 2 Instances" in message and "request delta of 2" in message


def test_create_cluster_is_held_to_the_quota_too(sm, eks_arn, capacity_reset):
    capacity_reset.set_quota("ml.p5.48xlarge", 2)
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, eks_arn, instance_group("gpu", count=3))
    code, message = error_of(exc_info)
    assert code == "ResourceLimitExceeded" and "'ml.p5.48xlarge for cluster usage' is 2 Instances" in message
    assert sm.list_clusters()["ClusterSummaries"] == []


def test_spot_short_in_a_zone_fails_the_group_with_what_it_could_get(sm, eks_arn, capacity_reset):
    ready_cluster(
        sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), NodeProvisioningMode="Continuous"
    )  # events
    capacity_reset.set_spot_capacity("us-east-1a", "ml.p5.48xlarge", 1)
    sm.update_cluster(
        ClusterName="hp", InstanceGroups=[instance_group("spot", count=3, CapacityRequirements={"Spot": {}})]
    )
    details = _details(sm, "spot")
    assert details["Status"] == "Failed"
    nodes = sm.list_cluster_nodes(ClusterName="hp", InstanceGroupNameContains="spot")["ClusterNodeSummaries"]
    assert len(nodes) == 1
    events = sm.list_cluster_events(ClusterName="hp", InstanceGroupName="spot")["Events"]
    assert any("not enough Spot capacity" in e["Description"] for e in events)


# ---------------------------------------------------------------------------------------- autoscaling

KARPENTER = {"Mode": "Enable", "AutoScalerType": "Karpenter"}


def _cluster_role(client: Any, trusted: str, actions: list[str], name: str = "hp-autoscale") -> str:
    import json as _json

    iam = client("iam")
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": trusted}, "Action": "sts:AssumeRole"}],
    }
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=_json.dumps(trust))["Role"]["Arn"]
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}
    iam.put_role_policy(RoleName=name, PolicyName="nodes", PolicyDocument=_json.dumps(policy))
    return arn


def test_karpenter_needs_a_cluster_created_with_continuous_provisioning(sm, eks_arn, client):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", AutoScaling=KARPENTER, ClusterRole=ROLE_ARN)
    assert "created with NodeProvisioningMode Continuous" in error_of(exc_info)[1]
    # AWS documents the prerequisite at creation only: the same request cannot switch the cluster over.
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(
            ClusterName="hp", AutoScaling=KARPENTER, ClusterRole=ROLE_ARN, NodeProvisioningMode="Continuous"
        )
    assert "created with NodeProvisioningMode Continuous" in error_of(exc_info)[1]
    with pytest.raises(ClientError) as exc_info:
        sm.batch_add_cluster_nodes(
            ClusterName="hp", NodesToAdd=[{"InstanceGroupName": "cpu", "IncrementTargetCountBy": 1}]
        )
    assert "Continuous" in error_of(exc_info)[1]


def test_karpenter_needs_a_cluster_role(sm, eks_arn, client):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), NodeProvisioningMode="Continuous")
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", AutoScaling=KARPENTER)
    assert "ClusterRole is required" in error_of(exc_info)[1]


def test_autoscaling_is_creating_then_fails_naming_what_the_role_lacks(sm, eks_arn, client):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), NodeProvisioningMode="Continuous")
    role = _cluster_role(client, "sagemaker.amazonaws.com", ["sagemaker:BatchAddClusterNodes"])
    sm.update_cluster(ClusterName="hp", AutoScaling=KARPENTER, ClusterRole=role)
    assert sm.describe_cluster(ClusterName="hp")["AutoScaling"]["Status"] == "Creating"
    fast_forward()
    failed = wait_until(
        lambda: (a := sm.describe_cluster(ClusterName="hp")["AutoScaling"])["Status"] != "Creating" and a
    )
    assert (
        failed["Status"] == "Failed" and "does not trust hyperpod.sagemaker.amazonaws.com" in failed["FailureMessage"]
    )


def test_autoscaling_with_a_proper_role_is_in_service_and_batch_add_raises_the_target(sm, eks_arn, client):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), NodeProvisioningMode="Continuous")
    role = _cluster_role(
        client,
        "hyperpod.sagemaker.amazonaws.com",
        ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
    )
    sm.update_cluster(ClusterName="hp", AutoScaling=KARPENTER, ClusterRole=role)
    fast_forward()
    assert wait_until(lambda: sm.describe_cluster(ClusterName="hp")["AutoScaling"]["Status"] == "InService")
    added = sm.batch_add_cluster_nodes(
        ClusterName="hp", NodesToAdd=[{"InstanceGroupName": "cpu", "IncrementTargetCountBy": 2}]
    )
    assert len(added["Successful"]) == 2 and _details(sm, "cpu")["TargetCount"] == 3
    missing = sm.batch_add_cluster_nodes(
        ClusterName="hp", NodesToAdd=[{"InstanceGroupName": "nope", "IncrementTargetCountBy": 1}]
    )
    assert missing["Failed"][0]["ErrorCode"] == "InstanceGroupNotFound"
