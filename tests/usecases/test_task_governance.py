"""Task governance's use cases against an in-memory SageMaker and EKS: what is created, updated or left alone,
that only Launchpod's own quotas are changed or deleted, and that changes wait for the add-on."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.task_governance import DeleteTeamView, GovernancePolicyRequest, TeamRequest
from launchpod.domain import features, ownership
from launchpod.domain import task_governance as tg
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.usecases import task_governance as cases

from tests.fakes.eks import Eks
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube
from tests.fakes.sagemaker import SageMaker
from tests.fakes.task_governance import TaskGovernance, queue_usage

ARN = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefabcdef"
DESCRIBED = {
    "ClusterArn": ARN,
    "InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "TargetCount": 2}],
}
TEAM = TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 1}], borrowLimit=50)


def _ports(
    gov: TaskGovernance, addon: str | None = "ACTIVE", kube: Kube | None = None, described: dict | None = DESCRIBED
) -> cases.GovernancePorts:
    return cases.GovernancePorts(
        sagemaker=SageMaker({"c1": described} if described else {}),
        eks=Eks(addons={"c1": {features.task_governance().addon: {"status": addon}} if addon else {}}),
        governance=gov,
        read=kube or Kube(),
        prefix="launchpod",
        instances=Instances(),
    )


def _local_queue(team: str) -> dict[str, Any]:
    """The team's Kueue LocalQueue, as the task governance add-on makes it."""
    return {
        "apiVersion": tg.KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": tg.local_queue(team), "namespace": tg.namespace(team)},
    }


def test_a_policy_is_created_then_an_equal_one_changes_nothing_and_a_new_weight_updates_it():
    gov = TaskGovernance()
    ports = _ports(gov)
    policy = GovernancePolicyRequest(priorityClasses=[{"name": "training", "weight": 40}])
    created = cases.set_policy("c1", policy, False, ports=ports)
    assert created.status == "CREATED" and created.message.startswith("Created the task governance policy of c1")
    assert cases.set_policy("c1", policy, False, ports=ports) == NoopView(
        message="The task governance policy of c1 already matches; no changes."
    )
    heavier = GovernancePolicyRequest(priorityClasses=[{"name": "training", "weight": 60}])
    planned = cases.set_policy("c1", heavier, True, ports=ports)
    assert isinstance(planned, PlanView) and [s.action for s in planned.steps] == ["update"]
    assert cases.set_policy("c1", heavier, False, ports=ports).status == "UPDATED"
    assert gov.calls == ["CreateClusterSchedulerConfig", "UpdateClusterSchedulerConfig v1"]
    assert [(p.name, p.weight) for p in cases.policy("c1", ports=ports).priorityClasses] == [("training", 60)]


def test_a_team_is_created_tagged_as_launchpods_then_noop_then_updated_by_version():
    gov = TaskGovernance()
    ports = _ports(gov, kube=Kube([_local_queue("research")]))
    created = cases.put_team("c1", "research", TEAM, False, ports=ports)
    assert created.message == (
        "Created the compute quota of team research. Submit its jobs in namespace hyperpod-ns-research with queue"
        " hyperpod-ns-research-localqueue."
    )
    assert gov.tag_map[gov.quota_list[0]["ComputeQuotaArn"]] == ownership.aws_tags("c1", "launchpod")
    assert isinstance(cases.put_team("c1", "research", TEAM, False, ports=ports), NoopView)
    wider = TEAM.model_copy(update={"borrowLimit": 100})
    assert cases.put_team("c1", "research", wider, False, ports=ports).status == "UPDATED"
    assert gov.calls == ["CreateComputeQuota", "UpdateComputeQuota v1"]
    views = cases.teams("c1", ports=ports)
    assert [(t.team, t.borrowLimit, t.managed, t.queueReady, t.queue) for t in views.items] == [
        ("research", 100, True, True, "hyperpod-ns-research-localqueue")
    ]


def test_a_count_above_the_clusters_instances_is_refused_before_sagemaker_is_called():
    gov = TaskGovernance()
    with pytest.raises(InvalidInput, match=r"has 2 ml\.p5\.48xlarge"):
        cases.put_team(
            "c1",
            "research",
            TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "instanceCount": 3}]),
            False,
            ports=_ports(gov),
        )
    assert gov.calls == []


def test_delete_needs_the_name_and_leaves_a_quota_launchpod_did_not_create():
    gov = TaskGovernance()
    ports = _ports(gov)
    cases.put_team("c1", "research", TEAM, False, ports=ports)
    for dry_run in (True, False):  # a dry run runs every check
        with pytest.raises(InvalidInput, match="confirm"):
            cases.delete_team("c1", "research", "", dry_run, ports=ports)
    gov.tag_map[gov.quota_list[0]["ComputeQuotaArn"]] = {}
    for dry_run in (True, False):
        with pytest.raises(Conflict, match="not created by Launchpod"):
            cases.delete_team("c1", "research", "research", dry_run, ports=ports)
    assert len(gov.quota_list) == 1


def test_a_dry_run_of_delete_names_the_quota_and_deletes_nothing_then_again_is_noop():
    gov = TaskGovernance()
    ports = _ports(gov)
    cases.put_team("c1", "research", TEAM, False, ports=ports)
    planned = cases.delete_team("c1", "research", "research", True, ports=ports)
    assert isinstance(planned, PlanView)
    assert [(s.action, s.target) for s in planned.steps] == [("delete", planned.target)]
    assert "team research" in planned.target and "hyperpod-ns-research-localqueue" in planned.steps[0].reason
    assert [q["ComputeQuotaTarget"]["TeamName"] for q in gov.quota_list] == ["research"]
    deleted = cases.delete_team("c1", "research", "research", False, ports=ports)
    assert isinstance(deleted, DeleteTeamView) and deleted.deleted is True and gov.quota_list == []
    again = cases.delete_team("c1", "research", "research", False, ports=ports)
    assert again == NoopView(
        message="c1 has no team research; nothing to delete (list them with GET /api/clusters/c1/teams)."
    )


def test_changes_wait_for_the_add_on_while_reads_answer_without_it():
    gov = TaskGovernance()
    ports = _ports(gov, addon="CREATING")
    with pytest.raises(Conflict, match=r"Task governance is CREATING on c1; .*PATCH /api/clusters/c1/features"):
        cases.put_team("c1", "research", TEAM, False, ports=ports)
    with pytest.raises(Conflict, match="Task governance is not installed on c1"):
        cases.set_policy("c1", GovernancePolicyRequest(priorityClasses=[]), False, ports=_ports(gov, addon=None))
    assert cases.policy("c1", ports=ports).configured is False and cases.teams("c1", ports=ports).items == []
    assert gov.calls == []


def test_a_cluster_without_hyperpod_is_not_found_with_how_to_create_it():
    with pytest.raises(NotFound, match="c1 has no HyperPod cluster; create one first") as refused:
        cases.teams("c1", ports=_ports(TaskGovernance(), described=None))
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "POST /api/clusters/c1/hyperpod"}]


def test_idle_resource_sharing_is_sent_to_sagemaker_and_an_equal_policy_is_noop():
    gov = TaskGovernance()
    ports = _ports(gov)
    policy = GovernancePolicyRequest(priorityClasses=[{"name": "training", "weight": 40}], idleResourceSharing=True)
    assert cases.set_policy("c1", policy, False, ports=ports).policy.idleResourceSharing is True
    assert gov.config["SchedulerConfig"]["IdleResourceSharing"] == "Enabled"
    assert isinstance(cases.set_policy("c1", policy, False, ports=ports), NoopView)


def test_a_team_shows_what_it_is_guaranteed_uses_and_borrows_from_its_cluster_queue():
    queue = {
        "apiVersion": tg.KUEUE_API,
        "kind": "ClusterQueue",
        "metadata": {"name": tg.cluster_queue("research")},
        "status": queue_usage("p5", {"nvidia.com/gpu": ("6", "2"), "cpu": ("144", "48")}),
    }
    flavor = {
        "apiVersion": tg.KUEUE_API,
        "kind": "ResourceFlavor",
        "metadata": {"name": "p5"},
        "spec": {"nodeLabels": {"node.kubernetes.io/instance-type": "ml.p5.48xlarge"}},
    }
    gov = TaskGovernance()
    ports = _ports(gov, kube=Kube([_local_queue("research"), queue, flavor]))
    request = TeamRequest(resources=[{"instanceType": "ml.p5.48xlarge", "accelerators": 4}])
    (view,) = [cases.put_team("c1", "research", request, False, ports=ports).team]
    assert [(g.instanceType, g.accelerators, g.vCpu, g.instanceCount) for g in view.guaranteed] == [
        ("ml.p5.48xlarge", 4, 96, 0.5)
    ]
    assert [(u.accelerators, u.vCpu) for u in view.used] == [(6, 144)]
    assert [(b.instanceType, b.accelerators) for b in view.borrowed] == [("ml.p5.48xlarge", 2)]
