"""Task governance's use cases against an in-memory SageMaker: what is created, updated or left alone, and
that only Launchpod's own quotas are changed or deleted."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.task_governance import GovernancePolicyRequest, TeamRequest
from launchpod.domain import ownership
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.usecases import task_governance as cases

from tests.usecases.fakes import Kube

ARN = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefabcdef"
CLUSTER = cases.Cluster(
    name="c1",
    described={"ClusterArn": ARN, "InstanceGroups": [{"InstanceType": "ml.p5.48xlarge", "TargetCount": 2}]},
    prefix="launchpod",
)
TEAM = TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "count": 1}], borrowLimit=50)


class FakeGovernance:
    """SageMaker's configs and quotas as dicts, with every write recorded."""

    def __init__(self) -> None:
        self.config: dict[str, Any] | None = None
        self.quota_list: list[dict[str, Any]] = []
        self.tag_map: dict[str, dict[str, str]] = {}
        self.calls: list[str] = []

    def scheduler_config(self, cluster_arn: str) -> dict[str, Any] | None:
        return self.config

    def create_scheduler_config(
        self, name: str, cluster_arn: str, config: dict[str, Any], tags: dict[str, str]
    ) -> None:
        self.calls.append("CreateClusterSchedulerConfig")
        self.config = {
            "ClusterSchedulerConfigId": "c" * 12,
            "ClusterSchedulerConfigVersion": 1,
            "SchedulerConfig": config,
        }

    def update_scheduler_config(self, config_id: str, version: int, config: dict[str, Any]) -> None:
        self.calls.append(f"UpdateClusterSchedulerConfig v{version}")
        assert self.config is not None
        self.config["SchedulerConfig"] = config

    def quotas(self, cluster_arn: str) -> list[dict[str, Any]]:
        return self.quota_list

    def create_quota(self, params: dict[str, Any], tags: dict[str, str]) -> None:
        self.calls.append("CreateComputeQuota")
        arn = f"arn:aws:sagemaker:us-east-1:123456789012:compute-quota/q{len(self.quota_list):011d}"
        self.tag_map[arn] = tags
        self.quota_list.append(
            {
                **params,
                "ComputeQuotaArn": arn,
                "ComputeQuotaId": arn[-12:],
                "ComputeQuotaVersion": 1,
                "Status": "Created",
            }
        )

    def update_quota(self, quota_id: str, version: int, params: dict[str, Any]) -> None:
        self.calls.append(f"UpdateComputeQuota v{version}")
        quota = next(q for q in self.quota_list if q["ComputeQuotaId"] == quota_id)
        quota.update(params, ComputeQuotaVersion=version + 1)

    def delete_quota(self, quota_id: str) -> None:
        self.calls.append("DeleteComputeQuota")
        self.quota_list = [q for q in self.quota_list if q["ComputeQuotaId"] != quota_id]

    def tags(self, arn: str) -> dict[str, str]:
        return self.tag_map.get(arn, {})


def test_a_policy_is_created_then_an_equal_one_changes_nothing_and_a_new_weight_updates_it():
    gov = FakeGovernance()
    policy = GovernancePolicyRequest(priorityClasses=[{"name": "training", "weight": 40}])
    assert cases.set_policy(CLUSTER, policy, gov, dry_run=False).applied == "CREATED"
    assert cases.set_policy(CLUSTER, policy, gov, dry_run=False).plan.empty
    heavier = GovernancePolicyRequest(priorityClasses=[{"name": "training", "weight": 60}])
    assert cases.set_policy(CLUSTER, heavier, gov, dry_run=True).applied is None
    assert cases.set_policy(CLUSTER, heavier, gov, dry_run=False).applied == "UPDATED"
    assert gov.calls == ["CreateClusterSchedulerConfig", "UpdateClusterSchedulerConfig v1"]


def test_a_team_is_created_tagged_as_launchpods_then_noop_then_updated_by_version():
    gov = FakeGovernance()
    assert cases.put_team(CLUSTER, "research", TEAM, gov, dry_run=False).applied == "CREATED"
    assert gov.tag_map[gov.quota_list[0]["ComputeQuotaArn"]] == ownership.aws_tags("c1", "launchpod")
    assert cases.put_team(CLUSTER, "research", TEAM, gov, dry_run=False).plan.empty
    wider = TEAM.model_copy(update={"borrowLimit": 100})
    assert cases.put_team(CLUSTER, "research", wider, gov, dry_run=False).applied == "UPDATED"
    assert gov.calls == ["CreateComputeQuota", "UpdateComputeQuota v1"]
    views = cases.team_views(CLUSTER, gov, Kube({"LocalQueue": {"metadata": {}}}))
    assert [(t.team, t.borrowLimit, t.managed, t.queueReady, t.localQueue) for t in views.items] == [
        ("research", 100, True, True, "hyperpod-ns-research-localqueue")
    ]


def test_a_count_above_the_clusters_instances_is_refused_before_sagemaker_is_called():
    gov = FakeGovernance()
    with pytest.raises(InvalidInput, match=r"has 2 ml\.p5\.48xlarge"):
        cases.put_team(
            CLUSTER, "research", TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "count": 3}]), gov, False
        )
    assert gov.calls == []


def test_delete_needs_the_name_and_leaves_a_quota_launchpod_did_not_create():
    gov = FakeGovernance()
    cases.put_team(CLUSTER, "research", TEAM, gov, dry_run=False)
    with pytest.raises(InvalidInput, match="confirm"):
        cases.delete_team(CLUSTER, "research", "", gov)
    gov.tag_map[gov.quota_list[0]["ComputeQuotaArn"]] = {}
    with pytest.raises(Conflict, match="not created by Launchpod"):
        cases.delete_team(CLUSTER, "research", "research", gov)
    gov.tag_map[gov.quota_list[0]["ComputeQuotaArn"]] = ownership.aws_tags("c1", "launchpod")
    assert cases.delete_team(CLUSTER, "research", "research", gov).deleted is True
    assert gov.quota_list == [] and cases.delete_team(CLUSTER, "research", "research", gov).deleted is False
