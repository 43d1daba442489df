"""Task governance rules: the add-on gate, quotas against the cluster's instance groups, the diff of a policy
or a team against what SageMaker has, and a job's queue and priority class."""

from __future__ import annotations

import re

import pytest
from launchpod.contracts.task_governance import GovernancePolicyRequest, TeamRequest
from launchpod.domain import task_governance as tg
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput

from tests.instance_facts import facts

DESCRIBED = HyperPodCluster(
    "c1",
    "arn:aws:sagemaker:us-east-1:123456789012:cluster/c1",
    "InService",
    instance_groups=(
        InstanceGroupState("gpu-a", instance_type="ml.p5.48xlarge", target_count=2),
        InstanceGroupState("gpu-b", instance_type="ml.p5.48xlarge", target_count=1),
        InstanceGroupState("cpu", instance_type="ml.m5.xlarge", current_count=4),
    ),
)
FACTS = {t: facts(t) for t in ("ml.p5.48xlarge", "ml.m5.xlarge")}
TEAM = TeamRequest(
    resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 2}], borrowLimit=50, fairShareWeight=10
)


def _quota(request: TeamRequest, team: str = "research") -> dict:
    return {
        "ComputeQuotaId": "abcdefabcdef",
        "ComputeQuotaVersion": 1,
        "Name": "q",
        "Status": "Created",
        "ComputeQuotaConfig": tg.quota_config(request),
        "ComputeQuotaTarget": tg.quota_target(team, request),
        "ActivationState": tg.activation(request),
    }


def test_names_are_the_add_ons():
    assert tg.namespace("research") == "hyperpod-ns-research"
    assert tg.local_queue("research") == "hyperpod-ns-research-localqueue"
    assert tg.priority_class("inference") == "inference-priority"


@pytest.mark.parametrize("status", [None, "CREATING", "DEGRADED"])
def test_without_an_active_add_on_the_refusal_names_the_feature(status):
    with pytest.raises(Conflict) as refused:
        tg.require_addon("c1", status)
    assert "taskGovernance" in refused.value.message and refused.value.details[0]["message"] == "taskGovernance"
    tg.require_addon("c1", "ACTIVE")


def test_capacity_adds_up_the_groups_of_a_type():
    assert tg.Capacity.of(DESCRIBED).counts == {"ml.p5.48xlarge": 3, "ml.m5.xlarge": 4}


def test_a_type_the_cluster_lacks_is_refused_naming_its_types():
    request = TeamRequest(resources=[{"instanceType": "ml.g5.xlarge", "instanceCount": 1}])
    with pytest.raises(InvalidInput) as refused:
        tg.check_resources("c1", request, tg.Capacity.of(DESCRIBED), FACTS)
    assert "ml.m5.xlarge (4), ml.p5.48xlarge (3)" in refused.value.message
    assert refused.value.details[0]["field"] == "body.resources[0].instanceType"


def test_more_instances_than_the_groups_hold_is_refused_saying_how_many():
    request = TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 4}])
    with pytest.raises(InvalidInput) as refused:
        tg.check_resources("c1", request, tg.Capacity.of(DESCRIBED), FACTS)
    assert "has 3 ml.p5.48xlarge" in refused.value.message and "at most 3" in refused.value.message
    tg.check_resources("c1", TEAM, tg.Capacity.of(DESCRIBED), FACTS)


def test_borrow_limit_needs_lend_and_borrow_and_types_appear_once():
    with pytest.raises(ValueError, match="LendAndBorrow"):
        TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 1}], sharing="Lend", borrowLimit=20)
    with pytest.raises(ValueError, match="once"):
        TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 1}] * 2)


def test_a_team_read_back_from_sagemaker_equals_the_request_so_it_is_a_noop():
    real = tg.team_of(_quota(TEAM))
    assert real == TEAM
    assert tg.team_plan("c1", "research", TEAM, real, managed=True).empty


def test_a_changed_borrow_limit_is_one_update_naming_the_field():
    changed = TEAM.model_copy(update={"borrowLimit": 80})
    plan = tg.team_plan("c1", "research", changed, tg.team_of(_quota(TEAM)), managed=True)
    assert [(s.action, s.reason) for s in plan.steps] == [("update", "borrowLimit: 50 -> 80")]


def test_a_new_team_is_a_create_and_a_change_to_a_foreign_quota_is_refused():
    assert [s.action for s in tg.team_plan("c1", "research", TEAM, None, managed=False).steps] == ["create"]
    changed = TEAM.model_copy(update={"fairShareWeight": 1})
    with pytest.raises(Conflict, match="not created by Launchpod"):
        tg.team_plan("c1", "research", changed, tg.team_of(_quota(TEAM)), managed=False)


def test_policy_order_of_classes_does_not_matter_but_a_weight_does():
    asked = GovernancePolicyRequest(priorityClasses=[{"name": "a", "weight": 10}, {"name": "b", "weight": 20}])
    described = {
        "SchedulerConfig": {
            **tg.scheduler_config(asked),
            "PriorityClasses": [{"Name": "b", "Weight": 20}, {"Name": "a", "Weight": 10}],
        }
    }
    assert tg.policy_plan("c1", asked, tg.policy_of(described)).empty
    heavier = GovernancePolicyRequest(priorityClasses=[{"name": "a", "weight": 90}, {"name": "b", "weight": 20}])
    assert [s.action for s in tg.policy_plan("c1", heavier, tg.policy_of(described)).steps] == ["update"]
    assert [s.action for s in tg.policy_plan("c1", heavier, None).steps] == ["create"]


def test_a_job_queue_must_be_in_its_namespace_and_the_refusal_names_the_teams_queues():
    queues = [("hyperpod-ns-research", "hyperpod-ns-research-localqueue")]
    tg.check_job_queue("c1", "hyperpod-ns-research", "hyperpod-ns-research-localqueue", None, queues, [])
    with pytest.raises(InvalidInput) as wrong:
        tg.check_job_queue("c1", "default", "hyperpod-ns-research-localqueue", None, queues, [])
    assert "hyperpod-ns-research-localqueue (namespace hyperpod-ns-research)" in wrong.value.message
    with pytest.raises(InvalidInput) as priority:
        tg.check_job_queue("c1", "default", None, "urgent-priority", queues, ["training-priority"])
    assert "training-priority" in priority.value.message and priority.value.details[0]["field"] == "body.priority"


def test_the_scheduler_config_of_a_62_character_cluster_name_is_a_valid_sagemaker_name() -> None:
    entity = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")  # EntityName, CreateClusterSchedulerConfig
    for length in range(1, 64):
        name = tg.config_name("c" * length)
        assert entity.match(name) and name.startswith("c" * min(length, 63)), (length, name)
