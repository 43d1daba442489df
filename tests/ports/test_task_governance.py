"""Task governance's contract: the in-memory fake (tests/fakes/task_governance.py) and
adapters.aws.task_governance on the sandbox's SageMaker answer each case alike: one scheduler config per cluster
updated over the version read, and one compute quota per team, tagged, updated over the version read and deleted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from launchpod.adapters.aws.task_governance import TaskGovernance as Adapter
from launchpod.domain.errors import Conflict

import sandbox.aws
from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.sagemaker import task_governance
from tests.fakes.task_governance import TaskGovernance
from tests.sandbox.aws.support import ROLE_ARN, VPC, hyperpod_ready_eks

GROUP = {"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "ExecutionRole": ROLE_ARN}
POLICY = {"PriorityClasses": [{"Name": "training", "Weight": 50}], "FairShare": "Enabled"}


@pytest.fixture(params=["fake", "sagemaker"])
def side(request: pytest.FixtureRequest) -> Iterator[tuple[Any, str]]:
    """The port and the HyperPod cluster's ARN."""
    if request.param == "fake":
        yield TaskGovernance(), "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefabcdef"
        return
    client = request.getfixturevalue("client")
    hyperpod.install()
    task_governance.install()
    eks, sm = client("eks"), client("sagemaker")
    sandbox.aws.set_cluster_creation_seconds(0)
    eks_arn = hyperpod_ready_eks(eks, "tg-eks")
    arn = sm.create_cluster(
        ClusterName="tg", InstanceGroups=[GROUP], VpcConfig=VPC, Orchestrator={"Eks": {"ClusterArn": eks_arn}}
    )["ClusterArn"]
    yield Adapter(), str(arn)
    task_governance.reset()


def _quota(cluster_arn: str, team: str = "research", count: int = 1) -> dict[str, Any]:
    return {
        "Name": f"{team}-quota",
        "ClusterArn": cluster_arn,
        "ComputeQuotaConfig": {
            "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": count}],
            "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 50},
            "PreemptTeamTasks": "LowerPriority",
        },
        "ComputeQuotaTarget": {"TeamName": team, "FairShareWeight": 10},
    }


def test_a_cluster_has_one_scheduler_config_updated_over_the_version_read(side: tuple[Any, str]) -> None:
    governance, arn = side
    assert governance.scheduler_config(arn) is None
    governance.create_scheduler_config("launchpod-policy", arn, POLICY, {"launchpod:cluster": "c1"})
    made = governance.scheduler_config(arn)
    assert made is not None
    assert (made["SchedulerConfig"], made["ClusterSchedulerConfigVersion"]) == (POLICY, 1)
    with pytest.raises(Conflict):
        governance.create_scheduler_config("again", arn, POLICY, {})
    updated = {"PriorityClasses": [{"Name": "inference", "Weight": 90}], "FairShare": "Disabled"}
    governance.update_scheduler_config(made["ClusterSchedulerConfigId"], 1, updated)
    again = governance.scheduler_config(arn)
    assert again is not None and (again["SchedulerConfig"], again["ClusterSchedulerConfigVersion"]) == (updated, 2)
    with pytest.raises(Conflict):
        governance.update_scheduler_config(made["ClusterSchedulerConfigId"], 1, POLICY)


def test_a_team_has_one_quota_tagged_updated_over_the_version_read_and_deleted(side: tuple[Any, str]) -> None:
    governance, arn = side
    assert governance.quotas(arn) == []
    governance.create_quota(_quota(arn), {"launchpod:cluster": "c1"})
    [quota] = governance.quotas(arn)
    assert (quota["ComputeQuotaTarget"], quota["ComputeQuotaVersion"]) == (
        {"TeamName": "research", "FairShareWeight": 10},
        1,
    )
    assert governance.tags(quota["ComputeQuotaArn"]) == {"launchpod:cluster": "c1"}
    with pytest.raises(Conflict):
        governance.create_quota(_quota(arn), {})
    config = {**quota["ComputeQuotaConfig"], "ResourceSharingConfig": {"Strategy": "Lend"}}
    governance.update_quota(quota["ComputeQuotaId"], 1, {"ComputeQuotaConfig": config})
    [again] = governance.quotas(arn)
    assert (again["ComputeQuotaVersion"], again["ComputeQuotaConfig"]["ResourceSharingConfig"]) == (
        2,
        {"Strategy": "Lend"},
    )
    with pytest.raises(Conflict):
        governance.update_quota(quota["ComputeQuotaId"], 1, {"ComputeQuotaConfig": config})
    governance.delete_quota(quota["ComputeQuotaId"])
    assert governance.quotas(arn) == []
