"""Task governance in the sandbox's SageMaker: one scheduler config per cluster, one quota per team, counts
within the cluster's instance groups, versions guarding updates; the add-on's Kueue objects match Kueue's CRDs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

import sandbox.aws
from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.sagemaker import task_governance
from sandbox.controllers import kueue
from tests import manifests
from tests.sandbox.aws.support import ROLE_ARN, VPC, hyperpod_ready_eks

GROUP = {"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "ExecutionRole": ROLE_ARN}


@pytest.fixture(autouse=True)
def installed(aws: Any) -> Iterator[None]:
    sandbox.aws.install(0.001)
    hyperpod.install()
    task_governance.install()
    yield
    task_governance.reset()


@pytest.fixture
def cluster_arn(client: Any, sm: Any) -> str:
    arn = hyperpod_ready_eks(client("eks"), "tg-eks")
    return str(
        sm.create_cluster(
            ClusterName="tg", InstanceGroups=[GROUP], VpcConfig=VPC, Orchestrator={"Eks": {"ClusterArn": arn}}
        )["ClusterArn"]
    )


def _quota(sm: Any, arn: str, team: str = "research", count: int = 1, **sharing: Any) -> dict[str, Any]:
    return dict(
        sm.create_compute_quota(
            Name=f"{team}-quota",
            ClusterArn=arn,
            ComputeQuotaConfig={
                "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": count}],
                "ResourceSharingConfig": {"Strategy": "LendAndBorrow", **sharing},
                "PreemptTeamTasks": "LowerPriority",
            },
            ComputeQuotaTarget={"TeamName": team, "FairShareWeight": 10},
            Tags=[{"Key": "owner", "Value": "me"}],
        )
    )


def _code(exc: pytest.ExceptionInfo[ClientError]) -> str:
    return str(exc.value.response["Error"]["Code"])


def test_a_cluster_has_one_scheduler_config_and_updates_need_the_current_version(sm, cluster_arn):
    config = {"PriorityClasses": [{"Name": "training", "Weight": 50}], "FairShare": "Enabled"}
    made = sm.create_cluster_scheduler_config(Name="policy", ClusterArn=cluster_arn, SchedulerConfig=config)
    with pytest.raises(ClientError) as second:
        sm.create_cluster_scheduler_config(Name="again", ClusterArn=cluster_arn, SchedulerConfig=config)
    assert _code(second) == "ConflictException"
    config_id = made["ClusterSchedulerConfigId"]
    updated = {"PriorityClasses": [{"Name": "inference", "Weight": 90}], "FairShare": "Disabled"}
    assert (
        sm.update_cluster_scheduler_config(
            ClusterSchedulerConfigId=config_id, TargetVersion=1, SchedulerConfig=updated
        )["ClusterSchedulerConfigVersion"]
        == 2
    )
    with pytest.raises(ClientError) as stale:
        sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=config_id, TargetVersion=1, SchedulerConfig=config)
    assert _code(stale) == "ConflictException"
    described = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
    assert (described["SchedulerConfig"], described["Status"]) == (updated, "Updated")
    listed = sm.list_cluster_scheduler_configs(ClusterArn=cluster_arn)["ClusterSchedulerConfigSummaries"]
    assert [c["ClusterSchedulerConfigId"] for c in listed] == [config_id]


def test_a_quota_needs_a_type_of_the_cluster_and_at_most_its_instances(sm, cluster_arn):
    with pytest.raises(ClientError) as unknown:
        sm.create_compute_quota(
            Name="q",
            ClusterArn=cluster_arn,
            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.g5.xlarge", "Count": 1}]},
            ComputeQuotaTarget={"TeamName": "a"},
        )
    assert _code(unknown) == "ValidationException" and "ml.p5.48xlarge" in str(unknown.value)
    with pytest.raises(ClientError) as too_many:
        _quota(sm, cluster_arn, count=3)
    assert _code(too_many) == "ValidationException" and "2 instances" in str(too_many.value)
    with pytest.raises(ClientError) as limit:
        _quota(sm, cluster_arn, BorrowLimit=501)
    assert _code(limit) == "ValidationException"


def test_a_team_has_one_quota_updated_by_version_tagged_and_deleted(sm, cluster_arn):
    made = _quota(sm, cluster_arn, count=2, BorrowLimit=50)
    with pytest.raises(ClientError) as twice:
        _quota(sm, cluster_arn)
    assert _code(twice) == "ConflictException"
    quota_id = made["ComputeQuotaId"]
    described = sm.describe_compute_quota(ComputeQuotaId=quota_id)
    assert described["ComputeQuotaTarget"] == {"TeamName": "research", "FairShareWeight": 10}
    assert sm.list_tags(ResourceArn=made["ComputeQuotaArn"])["Tags"] == [{"Key": "owner", "Value": "me"}]
    config = {**described["ComputeQuotaConfig"], "ResourceSharingConfig": {"Strategy": "Lend"}}
    sm.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=1, ComputeQuotaConfig=config)
    again = sm.describe_compute_quota(ComputeQuotaId=quota_id)
    assert (again["ComputeQuotaVersion"], again["ComputeQuotaConfig"]["ResourceSharingConfig"]) == (
        2,
        {"Strategy": "Lend"},
    )
    sm.delete_compute_quota(ComputeQuotaId=quota_id)
    assert sm.list_compute_quotas(ClusterArn=cluster_arn)["ComputeQuotaSummaries"] == []
    with pytest.raises(ClientError) as gone:
        sm.describe_compute_quota(ComputeQuotaId=quota_id)
    assert _code(gone) == "ResourceNotFound"


def test_the_add_on_objects_follow_the_quota_and_match_kueues_crds(sm, cluster_arn):
    made = _quota(sm, cluster_arn, count=2, BorrowLimit=25)
    sm.create_cluster_scheduler_config(
        Name="policy", ClusterArn=cluster_arn, SchedulerConfig={"PriorityClasses": [{"Name": "training", "Weight": 40}]}
    )
    objects = kueue.desired("tg-eks")
    names = {(o["kind"], o["metadata"]["name"]) for o in objects}
    assert names == {
        ("Namespace", "hyperpod-ns-research"),
        ("ResourceFlavor", "ml.p5.48xlarge"),
        ("ClusterQueue", "hyperpod-ns-research-clusterqueue"),
        ("LocalQueue", "hyperpod-ns-research-localqueue"),
        ("WorkloadPriorityClass", "training-priority"),
    }
    for obj in objects:
        assert manifests.errors(obj) == [], obj
    queue = next(o for o in objects if o["kind"] == "ClusterQueue")
    gpus = next(
        r for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"] if r["name"] == "nvidia.com/gpu"
    )
    assert gpus == {"name": "nvidia.com/gpu", "nominalQuota": "16", "borrowingLimit": "4"}
    sm.delete_compute_quota(ComputeQuotaId=made["ComputeQuotaId"])
    assert {o["kind"] for o in kueue.desired("tg-eks")} == {"WorkloadPriorityClass"}


def test_a_quota_in_accelerators_fills_vcpus_and_memory_by_ratio_and_caps_what_it_borrows(sm, cluster_arn):
    resources = [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 17}]
    with pytest.raises(ClientError) as too_many:
        sm.create_compute_quota(
            Name="q",
            ClusterArn=cluster_arn,
            ComputeQuotaConfig={"ComputeQuotaResources": resources},
            ComputeQuotaTarget={"TeamName": "a"},
        )
    assert _code(too_many) == "ValidationException" and "exceeds the 16" in str(too_many.value)
    sm.create_compute_quota(
        Name="q",
        ClusterArn=cluster_arn,
        ComputeQuotaConfig={
            "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 4}],
            "ResourceSharingConfig": {
                "Strategy": "LendAndBorrow",
                "BorrowLimit": 100,
                "AbsoluteBorrowLimits": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 2}],
            },
        },
        ComputeQuotaTarget={"TeamName": "a"},
    )
    queue = next(o for o in kueue.desired("tg-eks") if o["kind"] == "ClusterQueue")
    assert manifests.errors(queue) == []
    resources = {r["name"]: r for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]}
    # 4 of a p5's 8 GPUs: half its 192 vCPUs and 2048 GiB; the cap of 2 GPUs (and their share of vCPUs) wins
    # over the 100 % borrow limit
    assert resources["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": "4", "borrowingLimit": "2"}
    assert (resources["cpu"]["nominalQuota"], resources["cpu"]["borrowingLimit"]) == ("96", "48")
    assert resources["memory"]["nominalQuota"] == "1024Gi"


def test_idle_resource_sharing_lends_what_no_team_is_allocated_through_the_cohort(sm, cluster_arn):
    _quota(sm, cluster_arn, count=1)
    sm.create_cluster_scheduler_config(
        Name="policy", ClusterArn=cluster_arn, SchedulerConfig={"IdleResourceSharing": "Enabled"}
    )
    idle = next(o for o in kueue.desired("tg-eks") if o["metadata"]["name"] == kueue.IDLE_QUEUE)
    assert manifests.errors(idle) == []
    gpus = next(
        r for r in idle["spec"]["resourceGroups"][0]["flavors"][0]["resources"] if r["name"] == "nvidia.com/gpu"
    )
    assert gpus["nominalQuota"] == "8"  # the cluster's 16 GPUs less the team's 8
    team = next(o for o in kueue.desired("tg-eks") if o["metadata"]["name"] == "hyperpod-ns-research-clusterqueue")
    assert idle["spec"]["cohort"] == team["spec"]["cohort"]
