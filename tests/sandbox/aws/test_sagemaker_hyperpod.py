"""HyperPod emulation: cluster lifecycle on simulated time, updates, node operations, faults, Kubernetes Nodes."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

import sandbox.aws
from sandbox.aws import clock
from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.sagemaker import HYPERPOD_FAULTS
from tests.sandbox.aws.hyperpod_support import (
    CONTINUOUS,
    OBSERVE,
    cluster_nodes,
    create_hyperpod,
    error_of,
    fast_forward,
    in_service,
    instance_group,
    observe,
    ready_cluster,
)
from tests.sandbox.aws.support import ROLE_ARN, VPC, wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")


def _status(sm: Any, name: str = "hp") -> str:
    return sm.describe_cluster(ClusterName=name)["ClusterStatus"]


# ---------------------------------------------------------------------------------------- create


def test_create_keeps_orchestrator_node_recovery_and_every_group_field(sm, eks_arn):
    group = instance_group(
        ThreadsPerCore=2,
        InstanceStorageConfigs=[{"EbsVolumeConfig": {"VolumeSizeInGB": 500}}],
        OnStartDeepHealthChecks=["InstanceStress", "InstanceConnectivity"],
        # TrainingPlanArn: CreateCluster checks the plan (test_training_plans: a first group on a plan)
        OverrideVpcConfig={"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]},
        KubernetesConfig={
            "Labels": {"team": "nlp"},
            "Taints": [{"Key": "gpu", "Value": "true", "Effect": "NoSchedule"}],
        },
        CapacityRequirements={"OnDemand": {}},
        NetworkInterface={"InterfaceType": "efa"},
    )
    arn = create_hyperpod(
        sm,
        eks_arn,
        group,
        NodeRecovery="None",
        NodeProvisioningMode="Continuous",
        ClusterRole=ROLE_ARN,
        TieredStorageConfig={"Mode": "Enable", "InstanceMemoryAllocationPercentage": 20},
        AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"},
        Tags=[{"Key": "owner", "Value": "launchpod"}],
    )

    assert re.fullmatch(r"arn:aws:sagemaker:us-east-1:123456789012:cluster/[a-z0-9]{12}", arn)
    described = sm.describe_cluster(ClusterName=arn)
    assert described["ClusterName"] == "hp"
    assert described["ClusterStatus"] == "Creating"
    assert described["Orchestrator"] == {"Eks": {"ClusterArn": eks_arn}}
    assert described["NodeRecovery"] == "None"
    assert described["NodeProvisioningMode"] == "Continuous"
    assert described["ClusterRole"] == ROLE_ARN
    assert described["TieredStorageConfig"] == {"Mode": "Enable", "InstanceMemoryAllocationPercentage": 20}
    assert described["AutoScaling"]["AutoScalerType"] == "Karpenter"
    (details,) = described["InstanceGroups"]
    assert details["Status"] == "Creating"
    assert (details["CurrentCount"], details["TargetCount"]) == (0, 2)
    assert details["ThreadsPerCore"] == 2
    assert details["OnStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
    assert details["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": 500}}]
    assert details["OverrideVpcConfig"]["Subnets"] == ["subnet-1"]
    assert details["KubernetesConfig"]["DesiredLabels"] == {"team": "nlp"}
    assert details["CapacityRequirements"] == {"OnDemand": {}}
    assert details["NetworkInterface"] == {"InterfaceType": "efa"}
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "owner", "Value": "launchpod"}]
    assert [c["ClusterName"] for c in sm.list_clusters()["ClusterSummaries"]] == ["hp"]


@pytest.mark.parametrize(
    "instance_type", ["ml.p5en.48xlarge", "ml.p6-b200.48xlarge", "ml.trn2.48xlarge", "ml.g6e.48xlarge"]
)
def test_current_instance_types_are_accepted(sm, eks_arn, instance_type):
    create_hyperpod(sm, eks_arn, instance_group(instance_type=instance_type))
    assert sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]["InstanceType"] == instance_type


def test_unknown_instance_type_is_a_validation_error(sm, eks_arn):
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, eks_arn, instance_group(instance_type="ml.p9.96xlarge"))
    code, message = error_of(exc_info)
    assert code == "ValidationException"
    assert "'ml.p9.96xlarge' at 'instanceGroups.1.member.instanceType'" in message
    assert "ml.p5en.48xlarge" in message


def test_duplicate_cluster_name_is_resource_in_use(sm, eks_arn):
    create_hyperpod(sm, eks_arn)
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, eks_arn)
    assert error_of(exc_info)[0] == "ResourceInUse"


def test_missing_eks_cluster_is_refused(sm):
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, "arn:aws:eks:us-east-1:123456789012:cluster/nowhere")
    code, message = error_of(exc_info)
    assert code == "ValidationException" and "was not found" in message


def test_an_eks_cluster_still_creating_is_refused(sm, client):
    clock.set_time_scale(OBSERVE)  # EKS creation (600 simulated s) lasts 6 s
    arn = client("eks").create_cluster(
        name="not-yet",
        roleArn=ROLE_ARN,
        resourcesVpcConfig={"subnetIds": VPC["Subnets"]},
        accessConfig={"authenticationMode": "API"},
    )["cluster"]["arn"]
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, arn)
    code, message = error_of(exc_info)
    assert code == "ValidationException" and "is in CREATING status" in message and "ACTIVE" in message


def test_subnets_and_security_groups_must_be_in_the_eks_clusters_vpc(sm, client):
    ec2, eks = client("ec2"), client("eks")
    home, other = (ec2.create_vpc(CidrBlock=c)["Vpc"]["VpcId"] for c in ("10.3.0.0/16", "10.4.0.0/16"))
    home_subnet = ec2.create_subnet(VpcId=home, CidrBlock="10.3.0.0/20")["Subnet"]["SubnetId"]
    other_subnet = ec2.create_subnet(VpcId=other, CidrBlock="10.4.0.0/20")["Subnet"]["SubnetId"]
    other_group = ec2.create_security_group(GroupName="elsewhere", Description="x", VpcId=other)["GroupId"]
    arn = eks.create_cluster(
        name="home", roleArn=ROLE_ARN, resourcesVpcConfig={"subnetIds": [home_subnet]}, accessConfig={}
    )["cluster"]["arn"]
    fast_forward()
    wait_until(lambda: eks.describe_cluster(name="home")["cluster"]["status"] == "ACTIVE")
    home_group = eks.describe_cluster(name="home")["cluster"]["resourcesVpcConfig"]["clusterSecurityGroupId"]
    for vpc_config, wrong in (
        ({"Subnets": [other_subnet], "SecurityGroupIds": [home_group]}, f"Subnet {other_subnet} is in {other}"),
        ({"Subnets": [home_subnet], "SecurityGroupIds": [other_group]}, f"Security group {other_group} is in {other}"),
    ):
        with pytest.raises(ClientError) as exc_info:
            sm.create_cluster(
                ClusterName="hp",
                InstanceGroups=[instance_group()],
                VpcConfig=vpc_config,
                Orchestrator={"Eks": {"ClusterArn": arn}},
            )
        code, message = error_of(exc_info)
        assert code == "ValidationException" and wrong in message and "VPC of its EKS cluster" in message


def test_deep_health_checks_are_refused_on_instance_types_without_gpus_or_trainium(sm, eks_arn):
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, eks_arn, instance_group("cpu", "ml.m5.xlarge", OnStartDeepHealthChecks=["InstanceStress"]))
    code, message = error_of(exc_info)
    assert code == "ValidationException" and "not supported for instance type ml.m5.xlarge" in message
    create_hyperpod(
        sm, eks_arn, instance_group("trn", "ml.trn1.32xlarge", OnStartDeepHealthChecks=["InstanceConnectivity"])
    )


# ---------------------------------------------------------------------------------------- lifecycle scripts


def test_lifecycle_bucket_must_start_with_sagemaker_prefix(sm, eks_arn):
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(
            sm,
            eks_arn,
            instance_group(LifeCycleConfig={"SourceS3Uri": "s3://my-bucket/lc/", "OnCreate": "on_create.sh"}),
        )
    code, message = error_of(exc_info)
    assert code == "ValidationException"
    assert "does not start with 's3://sagemaker-'" in message
    assert "s3:GetObject" in message


def test_lifecycle_uri_must_be_s3(sm, eks_arn):
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(
            sm, eks_arn, instance_group(LifeCycleConfig={"SourceS3Uri": "https://sagemaker-x.s3.amazonaws.com/lc/"})
        )
    code, message = error_of(exc_info)
    assert code == "ValidationException" and "is not a valid S3 URI" in message


def test_other_bucket_is_accepted_when_the_execution_role_may_read_it(sm, eks_arn, client):
    iam = client("iam")
    role = iam.create_role(RoleName="hyperpod-exec", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    iam.put_role_policy(
        RoleName="hyperpod-exec",
        PolicyName="lifecycle",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::my-bucket/*"}],
            }
        ),
    )
    lifecycle = {"SourceS3Uri": "s3://my-bucket/lc/", "OnCreate": "on_create.sh"}
    create_hyperpod(sm, eks_arn, instance_group(ExecutionRole=role, LifeCycleConfig=lifecycle))
    assert sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]["LifeCycleConfig"] == lifecycle


def test_lifecycle_config_is_optional_for_eks_but_required_for_slurm(sm, eks_arn):
    group = instance_group()
    del group["LifeCycleConfig"]
    create_hyperpod(sm, eks_arn, group)
    with pytest.raises(ClientError) as exc_info:
        sm.create_cluster(ClusterName="slurm", InstanceGroups=[group])
    code, message = error_of(exc_info)
    assert code == "ValidationException" and "LifeCycleConfig is required" in message


# ---------------------------------------------------------------------------------------- lifecycle


def test_cluster_is_creating_for_fifteen_simulated_minutes_then_in_service_with_running_nodes(sm, eks_arn):
    clock.set_time_scale(0.005)  # 900 simulated seconds last 4.5 s: room for a loaded machine (1.8 s was not)
    sm.list_clusters()  # load the SageMaker model first so the Creating window is not spent on it
    started = time.monotonic()
    create_hyperpod(sm, eks_arn, instance_group(count=2), instance_group("controller", "ml.m5.xlarge", count=1))

    assert _status(sm) == "Creating"
    nodes = cluster_nodes(sm)
    assert len(nodes) == 3
    assert {n["InstanceStatus"]["Status"] for n in nodes} == {"Pending"}
    assert all(re.fullmatch(r"i-[0-9a-f]{17}", n["InstanceId"]) for n in nodes)

    described = in_service(sm)
    assert sandbox.aws.sim_seconds_elapsed(started) >= 900
    assert [(g["Status"], g["CurrentCount"], g["TargetCount"]) for g in described["InstanceGroups"]] == [
        ("InService", 2, 2),
        ("InService", 1, 1),
    ]
    nodes = cluster_nodes(sm)
    assert {n["InstanceStatus"]["Status"] for n in nodes} == {"Running"}
    details = sm.describe_cluster_node(ClusterName="hp", NodeId=nodes[0]["InstanceId"])["NodeDetails"]
    assert details["InstanceType"] in {"ml.p5.48xlarge", "ml.m5.xlarge"}
    assert details["Placement"]["AvailabilityZone"].startswith("us-east-1")
    assert details["Placement"]["AvailabilityZoneId"].startswith("use1-az")
    assert details["LaunchTime"] and details["InstanceGroupName"] in {"workers", "controller"}


def test_creation_time_is_configurable(sm, eks_arn):
    hyperpod.set_cluster_creation_seconds(60)  # 60 ms at the default test scale
    create_hyperpod(sm, eks_arn)
    in_service(sm, timeout=5)
    assert hyperpod.describe_durations()["cluster_create"] == 60


def test_deep_health_checks_run_before_nodes_are_running(sm, eks_arn):
    observe()
    hyperpod.set_durations(cluster_create=50)  # Pending for 0.5 s, then 6 s of deep health checks
    checked = instance_group(count=1, OnStartDeepHealthChecks=["InstanceStress"])
    create_hyperpod(sm, eks_arn, checked, NodeProvisioningMode="Continuous")  # events

    checking = wait_until(
        lambda: (n := cluster_nodes(sm)[0])["InstanceStatus"]["Status"] == "DeepHealthCheckInProgress" and n
    )
    assert _status(sm) == "Creating"
    assert "InstanceStress" in checking["InstanceStatus"]["Message"]
    fast_forward()
    in_service(sm)
    assert cluster_nodes(sm)[0]["InstanceStatus"]["Status"] == "Running"
    events = [e["Description"] for e in sm.list_cluster_events(ClusterName="hp")["Events"]]
    assert any("Deep health checks passed" in e for e in events)
    assert any(e == "Cluster hp is InService." for e in events)


def test_describe_node_of_unknown_id_is_not_found(sm, eks_arn):
    create_hyperpod(sm, eks_arn)
    with pytest.raises(ClientError) as exc_info:
        sm.describe_cluster_node(ClusterName="hp", NodeId="i-00000000000000000")
    assert error_of(exc_info)[0] == "ResourceNotFound"


# ---------------------------------------------------------------------------------------- update


def test_update_cluster_adds_and_scales_groups_then_returns_to_in_service(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group(count=1))

    sm.update_cluster(
        ClusterName="hp",
        InstanceGroups=[instance_group(count=2), instance_group("trainium", "ml.trn2.48xlarge", count=1)],
        NodeRecovery="None",
    )

    described = sm.describe_cluster(ClusterName="hp")
    assert described["ClusterStatus"] == "Updating"
    assert described["NodeRecovery"] == "None"
    assert {g["InstanceGroupName"]: g["Status"] for g in described["InstanceGroups"]} == {
        "workers": "Updating",
        "trainium": "Creating",
    }
    assert len(cluster_nodes(sm)) == 3
    fast_forward()
    described = in_service(sm)
    assert {g["InstanceGroupName"]: g["CurrentCount"] for g in described["InstanceGroups"]} == {
        "workers": 2,
        "trainium": 1,
    }


def test_update_cluster_deletes_instance_groups(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group(count=1), instance_group("spare", count=1))

    sm.update_cluster(ClusterName="hp", InstanceGroupsToDelete=["spare"])

    assert {g["InstanceGroupName"]: g["Status"] for g in sm.describe_cluster(ClusterName="hp")["InstanceGroups"]} == {
        "workers": "InService",
        "spare": "Deleting",
    }
    fast_forward()
    described = in_service(sm)
    assert [g["InstanceGroupName"] for g in described["InstanceGroups"]] == ["workers"]
    assert {n["InstanceGroupName"] for n in cluster_nodes(sm)} == {"workers"}


def test_update_while_creating_is_a_conflict(sm, eks_arn):
    observe()
    create_hyperpod(sm, eks_arn)
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group(count=3)])
    code, message = error_of(exc_info)
    assert code == "ConflictException" and "Creating" in message


def test_instance_type_of_an_existing_group_cannot_change(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group(count=1))
    with pytest.raises(ClientError) as exc_info:
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group(instance_type="ml.p5en.48xlarge", count=1)])
    assert "cannot be changed" in error_of(exc_info)[1]


def test_update_cluster_software_goes_system_updating_in_rolling_batches(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group(count=2))

    sm.update_cluster_software(
        ClusterName="hp",
        DeploymentConfig={
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}},
            "WaitIntervalInSeconds": 30,
        },
    )

    described = sm.describe_cluster(ClusterName="hp")
    assert described["ClusterStatus"] == "SystemUpdating"
    assert described["InstanceGroups"][0]["Status"] == "SystemUpdating"
    assert described["InstanceGroups"][0]["SoftwareUpdateStatus"] == "InProgress"
    # One instance at a time: never both updating at once.
    assert sorted(n["InstanceStatus"]["Status"] for n in cluster_nodes(sm)) == ["Running", "SystemUpdating"]
    fast_forward()
    described = in_service(sm)
    assert described["InstanceGroups"][0]["SoftwareUpdateStatus"] == "Succeeded"
    assert all("LastSoftwareUpdateTime" in n for n in cluster_nodes(sm))


# ---------------------------------------------------------------------------------------- batch node operations


@pytest.fixture
def running_cluster(sm: Any, eks_arn: str) -> list[str]:
    ready_cluster(sm, eks_arn, instance_group(count=3))
    return sorted(n["InstanceId"] for n in cluster_nodes(sm))


def test_batch_reboot_sends_nodes_back_through_pending(sm, running_cluster):
    node = running_cluster[0]
    result = sm.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[node, "i-0000000000000dead"])

    assert result["Successful"] == [node]
    assert result["Failed"] == [
        {
            "NodeId": "i-0000000000000dead",
            "ErrorCode": "InstanceIdNotFound",
            "Message": "Node i-0000000000000dead not found in cluster hp.",
        }
    ]
    assert (
        sm.describe_cluster_node(ClusterName="hp", NodeId=node)["NodeDetails"]["InstanceStatus"]["Status"] == "Pending"
    )
    fast_forward()
    wait_until(
        lambda: (
            sm.describe_cluster_node(ClusterName="hp", NodeId=node)["NodeDetails"]["InstanceStatus"]["Status"]
            == "Running"
        )
    )


def test_batch_replace_gives_a_new_instance(sm, running_cluster):
    node = running_cluster[0]
    result = sm.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[node, "i-0000000000000dead"])

    assert result["Successful"] == [node]
    assert result["Failed"][0]["ErrorCode"] == "InstanceIdNotFound"
    ids = {n["InstanceId"] for n in cluster_nodes(sm)}
    assert node not in ids and len(ids) == 3
    fast_forward()
    wait_until(lambda: {n["InstanceStatus"]["Status"] for n in cluster_nodes(sm)} == {"Running"})


def test_batch_delete_removes_nodes_and_lowers_counts(sm, running_cluster):
    result = sm.batch_delete_cluster_nodes(ClusterName="hp", NodeIds=[running_cluster[0], "i-0000000000000dead"])

    assert result["Successful"] == [running_cluster[0]]
    assert result["Failed"] == [
        {
            "NodeId": "i-0000000000000dead",
            "Code": "NodeIdNotFound",
            "Message": "Node i-0000000000000dead not found in cluster hp.",
        }
    ]
    assert sorted(n["InstanceId"] for n in cluster_nodes(sm)) == running_cluster[1:]
    group = sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]
    assert (group["CurrentCount"], group["TargetCount"]) == (2, 2)


def test_pending_nodes_cannot_be_rebooted(sm, eks_arn):
    observe()
    create_hyperpod(sm, eks_arn, instance_group(count=1))
    node = cluster_nodes(sm)[0]["InstanceId"]

    result = sm.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[node])

    assert result["Successful"] == []
    assert result["Failed"][0]["ErrorCode"] == "InvalidInstanceStatus"
    assert "Pending" in result["Failed"][0]["Message"]


def test_batch_operation_on_unknown_cluster_is_not_found(sm):
    with pytest.raises(ClientError) as exc_info:
        sm.batch_reboot_cluster_nodes(ClusterName="nope", NodeIds=["i-0123456789abcdef0"])
    assert error_of(exc_info)[0] == "ResourceNotFound"


# ---------------------------------------------------------------------------------------- delete


def test_delete_shows_deleting_then_the_cluster_is_gone(sm, eks_arn):
    observe()
    create_hyperpod(sm, eks_arn)

    assert sm.delete_cluster(ClusterName="hp")["ClusterArn"]
    assert _status(sm) == "Deleting"
    assert {n["InstanceStatus"]["Status"] for n in cluster_nodes(sm)} == {"ShuttingDown"}
    fast_forward()

    def gone() -> bool:
        try:
            sm.describe_cluster(ClusterName="hp")
        except ClientError as error:
            return error.response["Error"]["Code"] == "ResourceNotFound"
        return False

    wait_until(gone)
    assert sm.list_clusters()["ClusterSummaries"] == []


# ---------------------------------------------------------------------------------------- faults


def _failed(sm: Any) -> dict[str, Any]:
    return wait_until(lambda: (d := sm.describe_cluster(ClusterName="hp"))["ClusterStatus"] == "Failed" and d)


def test_capacity_fault_fails_the_cluster_with_the_zone_in_the_message(sm, eks_arn):
    HYPERPOD_FAULTS.fail_next_create("capacity")
    observe()
    create_hyperpod(sm, eks_arn)
    assert _status(sm) == "Creating"
    fast_forward()

    described = _failed(sm)
    assert described["FailureMessage"].startswith(
        "We currently do not have sufficient capacity for ml.p5.48xlarge in the requested Availability Zone us-east-1"
    )
    assert described["InstanceGroups"][0]["Status"] == "Failed"
    assert cluster_nodes(sm) == []
    assert HYPERPOD_FAULTS.describe() == {"armed": None, "message": None, "injected": {"capacity": 1}}


def test_events_are_kept_only_for_clusters_with_continuous_provisioning(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group(count=1))
    for call in (
        lambda: sm.list_cluster_events(ClusterName="hp"),
        lambda: sm.describe_cluster_event(ClusterName="hp", EventId="83ea0bb5-be77-45e8-a458-0a87f778a205"),
    ):
        with pytest.raises(ClientError) as refused:
            call()
        assert refused.value.response["Error"]["Code"] == "ValidationException"
        assert "only supported when the NodeProvisioningMode is set to Continuous" in str(refused.value)


def test_lifecycle_script_fault_names_the_group_and_log_group(sm, eks_arn):
    HYPERPOD_FAULTS.fail_next_create("lifecycle_script")
    fast_forward()
    create_hyperpod(
        sm, eks_arn, instance_group("gpu-workers"), NodeProvisioningMode="Continuous"
    )  # its events carry the reason

    message = _failed(sm)["FailureMessage"]
    assert message.startswith("Lifecycle script did not run successfully.")
    assert "instance group gpu-workers" in message
    assert "/aws/sagemaker/Clusters/hp/" in message
    events = sm.list_cluster_events(ClusterName="hp", ResourceType="InstanceGroup")["Events"]
    [error] = [e for e in events if e["EventLevel"] == "Error" and e["InstanceGroupName"] == "gpu-workers"]
    # DescribeClusterEvent carries the failure message in the metadata of the event's resource type
    detail = sm.describe_cluster_event(ClusterName="hp", EventId=error["EventId"])["EventDetails"]
    assert detail["EventDetails"]["EventMetadata"]["InstanceGroup"]["FailureMessage"] == message
    [cluster] = [
        e
        for e in sm.list_cluster_events(ClusterName="hp", ResourceType="Cluster")["Events"]
        if e["EventLevel"] == "Error"
    ]
    detail = sm.describe_cluster_event(ClusterName="hp", EventId=cluster["EventId"])["EventDetails"]
    assert detail["EventDetails"]["EventMetadata"] == {"Cluster": {"FailureMessage": message}}


def test_fault_message_can_be_given(sm, eks_arn):
    HYPERPOD_FAULTS.fail_next_create("capacity", "no p5 today")
    fast_forward()
    create_hyperpod(sm, eks_arn)
    assert _failed(sm)["FailureMessage"] == "no p5 today"
    create_hyperpod(sm, eks_arn, name="second")  # one-shot
    in_service(sm, "second")


def test_deep_health_check_fault_keeps_the_cluster_and_fails_one_node(sm, eks_arn):
    HYPERPOD_FAULTS.fail_next_create("deep_health_check")
    described = ready_cluster(
        sm,
        eks_arn,
        instance_group(count=2, OnStartDeepHealthChecks=["InstanceStress"]),
        NodeRecovery="None",
        **CONTINUOUS,
    )
    assert described["InstanceGroups"][0]["Status"] == "Degraded"
    assert described["InstanceGroups"][0]["CurrentCount"] == 1
    failed = [n for n in cluster_nodes(sm) if n["InstanceStatus"]["Status"] == "Failure"]
    assert len(failed) == 1
    assert "Deep health check InstanceStress failed" in failed[0]["InstanceStatus"]["Message"]
    events = sm.list_cluster_events(ClusterName="hp", NodeId=failed[0]["InstanceId"])["Events"]
    [error] = [e for e in events if e["EventLevel"] == "Error"]
    metadata = sm.describe_cluster_event(ClusterName="hp", EventId=error["EventId"])["EventDetails"]["EventDetails"]
    assert metadata["EventMetadata"]["Instance"]["FailureMessage"] == failed[0]["InstanceStatus"]["Message"]

    sm.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[failed[0]["InstanceId"]])
    fast_forward()
    wait_until(lambda: sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]["Status"] == "InService")


def test_deep_health_check_failure_is_replaced_automatically_with_automatic_recovery(sm, eks_arn):
    HYPERPOD_FAULTS.fail_next_create("deep_health_check")
    observe()
    hyperpod.set_durations(cluster_create=10, deep_health_check=10)  # fails after 0.2 s, replaced 3 s later
    create_hyperpod(
        sm,
        eks_arn,
        instance_group(count=1, OnStartDeepHealthChecks=["InstanceStress"]),
        NodeRecovery="Automatic",
        **CONTINUOUS,
    )
    first = cluster_nodes(sm)[0]["InstanceId"]

    wait_until(lambda: cluster_nodes(sm)[0]["InstanceStatus"]["Status"] == "Failure")
    fast_forward()
    wait_until(
        lambda: (n := cluster_nodes(sm)[0])["InstanceId"] != first and n["InstanceStatus"]["Status"] == "Running"
    )
    events = [e["Description"] for e in sm.list_cluster_events(ClusterName="hp", ResourceType="Instance")["Events"]]
    assert any("automatic node recovery" in e for e in events)


def test_fault_kind_is_checked():
    with pytest.raises(ValueError):
        HYPERPOD_FAULTS.fail_next_create("meteor")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------- Kubernetes Nodes


class FakeSink:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[dict[str, Any]]]] = []

    def __call__(self, cluster: str, nodes: list[dict[str, Any]]) -> None:
        self.calls.append((cluster, nodes))

    def latest(self) -> list[dict[str, Any]]:
        return self.calls[-1][1] if self.calls else []


def test_running_nodes_are_sent_as_labelled_kubernetes_nodes(sm, eks_arn):
    sink = FakeSink()
    hyperpod.set_node_sink(sink)
    observe()
    create_hyperpod(
        sm,
        eks_arn,
        instance_group("gpu", "ml.p5.48xlarge", count=2, KubernetesConfig={"Labels": {"team": "nlp"}}),
        instance_group("neuron", "ml.trn2.48xlarge", count=1),
    )
    assert sink.latest() == []  # Pending instances have not joined the cluster yet
    fast_forward()
    in_service(sm)

    assert {cluster for cluster, _ in sink.calls} == {"launchpod-eks"}
    nodes = {n["metadata"]["labels"]["sagemaker.amazonaws.com/instance-group-name"]: n for n in sink.latest()}
    assert len(sink.latest()) == 3
    gpu = nodes["gpu"]
    instance_ids = {n["InstanceId"] for n in cluster_nodes(sm)}
    assert gpu["apiVersion"] == "v1" and gpu["kind"] == "Node"
    assert gpu["metadata"]["name"].removeprefix("hyperpod-") in instance_ids
    labels = gpu["metadata"]["labels"]
    assert labels["sagemaker.amazonaws.com/compute-type"] == "hyperpod"
    assert labels["sagemaker.amazonaws.com/cluster-name"] == "hp"
    assert labels["sagemaker.amazonaws.com/node-health-status"] == "Schedulable"
    assert labels["node.kubernetes.io/instance-type"] == "ml.p5.48xlarge"
    assert labels["topology.kubernetes.io/zone"].startswith("us-east-1")
    assert labels["topology.k8s.aws/zone-id"].startswith("use1-az")
    assert labels["team"] == "nlp"
    assert gpu["status"]["capacity"]["nvidia.com/gpu"] == "8"
    assert gpu["status"]["capacity"]["vpc.amazonaws.com/efa"] == "32"
    assert {"type": "Ready", "status": "True"}.items() <= gpu["status"]["conditions"][0].items()
    assert nodes["neuron"]["status"]["capacity"]["aws.amazon.com/neuron"] == "16"
    assert "nvidia.com/gpu" not in nodes["neuron"]["status"]["capacity"]
    # the kubelet is the EKS cluster's Kubernetes minor version
    assert gpu["status"]["nodeInfo"]["kubeletVersion"].startswith(f"v{sandbox.aws.eks.DEFAULT_KUBERNETES_VERSION}.")

    calls = len(sink.calls)
    sm.describe_cluster(ClusterName="hp")
    assert len(sink.calls) == calls  # unchanged lists are not sent again


def test_failed_replaced_and_deleted_nodes_update_the_node_list(sm, eks_arn):
    sink = FakeSink()
    hyperpod.set_node_sink(sink)
    HYPERPOD_FAULTS.fail_next_create("deep_health_check")
    ready_cluster(sm, eks_arn, instance_group(count=2, OnStartDeepHealthChecks=["InstanceStress"]), NodeRecovery="None")

    health = {
        n["metadata"]["name"]: n["metadata"]["labels"]["sagemaker.amazonaws.com/node-health-status"]
        for n in sink.latest()
    }
    assert sorted(health.values()) == ["Schedulable", "UnschedulablePendingReplacement"]
    bad = next(name for name, value in health.items() if value != "Schedulable")
    bad_node = next(n for n in sink.latest() if n["metadata"]["name"] == bad)
    assert bad_node["metadata"]["labels"]["sagemaker.amazonaws.com/deep-health-check-status"] == "Failed"

    sm.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[bad.removeprefix("hyperpod-")])
    assert bad not in {n["metadata"]["name"] for n in sink.latest()}
    fast_forward()
    wait_until(lambda: sm.describe_cluster(ClusterName="hp") and len(sink.latest()) == 2)

    sm.delete_cluster(ClusterName="hp")
    assert sink.calls[-1] == ("launchpod-eks", [])


def test_kube_node_sink_registers_nodes_in_the_emulated_api_server(sm, eks_arn):
    from kubernetes import client as k8s

    from sandbox.kube import KubeFleet, configuration, mint_token

    fast_forward()
    fleet = KubeFleet()
    try:
        url = fleet.start_for("launchpod-eks")
        fleet.call(
            "launchpod-eks",
            lambda emu: emu.put_object(
                "v1/nodes",
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {
                        "name": "hyperpod-i-0123456789abcdef0",
                        "labels": {"sagemaker.amazonaws.com/compute-type": "hyperpod"},
                    },
                },
            ),
        )  # a stale node from an earlier cluster: the sink removes it
        hyperpod.set_node_sink(hyperpod.kube_node_sink(fleet))
        create_hyperpod(sm, eks_arn, instance_group(count=2))
        in_service(sm)

        core = k8s.CoreV1Api(k8s.ApiClient(configuration(url, mint_token("launchpod-eks"))))
        listed = core.list_node(label_selector="sagemaker.amazonaws.com/compute-type=hyperpod").items
        assert sorted(n.metadata.name for n in listed) == sorted(
            "hyperpod-" + n["InstanceId"] for n in cluster_nodes(sm)
        )
        assert all(n.status.capacity["nvidia.com/gpu"] == "8" for n in listed)
        assert all(n.metadata.labels["sagemaker.amazonaws.com/cluster-name"] == "hp" for n in listed)
        assert core.list_namespaced_event("default").items == []  # nothing has rebooted yet

        # kubelet reports a Node back with another boot id as a Warning event "Rebooted"
        rebooted, other = sorted(n["InstanceId"] for n in cluster_nodes(sm))
        sm.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[rebooted])
        cluster_nodes(sm)
        events = wait_until(lambda: core.list_namespaced_event("default").items)
        [event] = events
        assert (event.type, event.reason, event.involved_object.kind) == ("Warning", "Rebooted", "Node")
        assert event.involved_object.name == f"hyperpod-{rebooted}"
        boot = core.read_node(f"hyperpod-{rebooted}").status.node_info.boot_id
        assert event.message == f"Node hyperpod-{rebooted} has been rebooted, boot id: {boot}"
        assert other not in event.message
    finally:
        fleet.stop_all()


def test_status_changes_are_announced_once_each_with_the_failure_message(sm, eks_arn):
    announced: list[dict[str, Any]] = []
    hyperpod.set_state_sink(lambda account, region, detail: announced.append(detail))
    try:
        observe()
        arn = create_hyperpod(sm, eks_arn)
        hyperpod.sync_nodes()
        hyperpod.sync_nodes()  # nothing moved: nothing announced again
        fast_forward()
        in_service(sm)
        hyperpod.sync_nodes()
        observe()
        HYPERPOD_FAULTS.fail_next_create("capacity")
        create_hyperpod(sm, eks_arn, name="hp-fails")
        hyperpod.sync_nodes()
        fast_forward()
        wait_until(lambda: _status(sm, "hp-fails") == "Failed")
        hyperpod.sync_nodes()
    finally:
        hyperpod.set_state_sink(None)
    assert [(d["ClusterName"], d["ClusterStatus"]) for d in announced] == [
        ("hp", "Creating"),
        ("hp", "InService"),
        ("hp-fails", "Creating"),
        ("hp-fails", "Failed"),
    ]
    assert announced[0]["ClusterArn"] == arn and announced[0]["NodeRecovery"] == "Automatic"
    assert "capacity" in announced[-1]["FailureMessage"]


def test_reset_leaves_the_next_test_none_of_what_this_one_set(sm, eks_arn):
    from sandbox.aws.sagemaker import capacity

    sent: list[Any] = []
    hyperpod.set_durations(cluster_create=1.0)
    HYPERPOD_FAULTS.fail_next_create("capacity")
    hyperpod.set_node_sink(lambda eks_cluster, nodes: sent.append(nodes))
    hyperpod.set_state_sink(lambda account, region, detail: sent.append(detail))
    capacity.set_quota("ml.p5.48xlarge", 0)

    hyperpod.reset()  # what the package's ``aws`` fixture runs after every test

    create_hyperpod(sm, eks_arn)  # held to a quota of 0 it would be refused
    hyperpod.sync_nodes()
    assert sent == []  # the sinks of the test before are not called
    assert hyperpod.describe_durations() == hyperpod.DEFAULT_DURATIONS
    assert HYPERPOD_FAULTS.describe()["armed"] is None


def test_an_eks_cluster_at_a_kubernetes_version_hyperpod_does_not_support_is_refused(sm, client):
    eks = client("eks")
    arn = eks.create_cluster(
        name="too-new",
        version="1.35",  # EKS offers it; HyperPod does not list it
        roleArn=ROLE_ARN,
        resourcesVpcConfig={"subnetIds": VPC["Subnets"], "securityGroupIds": VPC["SecurityGroupIds"]},
        accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"},
    )["cluster"]["arn"]
    with pytest.raises(ClientError) as caught:
        create_hyperpod(sm, arn)
    error = caught.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert "Kubernetes 1.35" in error["Message"] and "1.34" in error["Message"]
    assert sm.list_clusters()["ClusterSummaries"] == []
