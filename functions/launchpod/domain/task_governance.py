"""Task governance, pure: the names the add-on gives a team's objects, the rules a quota must meet against
the cluster's instance groups, the SageMaker parameters for the scheduler config and a compute quota, and
the explicit diff of a request against the real config or quota (empty: NOOP).

AWS ("HyperPod task governance" and its policies pages,
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance.html,
.../sagemaker-hyperpod-eks-operate-console-ui-governance-policies.html): a cluster has one cluster policy
(the scheduler config: priority classes and fair share) and one compute allocation per team. The add-on
turns a team into namespace ``hyperpod-ns-<team>`` with the LocalQueue ``hyperpod-ns-<team>-localqueue``
that tasks are submitted to (label ``kueue.x-k8s.io/queue-name``), and each priority class into the Kueue
WorkloadPriorityClass ``<name>-priority`` (label ``kueue.x-k8s.io/priority-class``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.task_governance import (
    GovernancePolicyRequest,
    InstanceQuota,
    PriorityClassSpec,
    ResourceAmounts,
    TeamRequest,
    TeamView,
)
from launchpod.domain import team_resources
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.plan import Plan, Step

KUEUE_API = "kueue.x-k8s.io/v1beta1"  # served by every Kueue the add-on has shipped (v0.19.2 serves v1beta2 too)
NAMESPACE_PREFIX = "hyperpod-ns-"
FEATURE = "taskGovernance"


def namespace(team: str) -> str:
    return f"{NAMESPACE_PREFIX}{team}"


def local_queue(team: str) -> str:
    return f"{namespace(team)}-localqueue"


def cluster_queue(team: str) -> str:
    return f"{namespace(team)}-clusterqueue"


def priority_class(name: str) -> str:
    return f"{name}-priority"


def config_name(cluster: str) -> str:
    """SageMaker EntityName: 63 at most, ending alphanumeric (``[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}``, API
    reference CreateClusterSchedulerConfig): a 62-character cluster name would otherwise leave a "-" last.
    The whole cluster name always fits, so the name stays unique per cluster."""
    return f"{cluster}-scheduler"[:63].rstrip("-")


def quota_name(cluster: str, team: str) -> str:
    """SageMaker EntityName (63 at most); the team is what identifies the quota, the name only labels it."""
    return f"{team}-{cluster}"[:63].rstrip("-")


def require_addon(cluster: str, addon_status: str | None) -> None:
    """409 naming the feature while the task governance add-on is not ACTIVE."""
    if addon_status != "ACTIVE":
        state = addon_status or "not installed"
        raise Conflict(
            f"Task governance is {state} on {cluster}; policies and teams need its add-on ACTIVE. Enable the "
            f"taskGovernance feature: PATCH /api/clusters/{cluster}/features "
            '{"taskGovernance": {"enabled": true}}.',
            details=[{"field": "path.name", "rule": "feature_enabled", "message": FEATURE}],
        )


@dataclass(frozen=True)
class Capacity:
    """Instances per type in the cluster's instance groups (DescribeCluster's TargetCount or CurrentCount)."""

    counts: dict[str, int]

    @staticmethod
    def of(cluster: HyperPodCluster) -> Capacity:
        counts: Counter[str] = Counter()
        for group in cluster.instance_groups:
            counts[str(group.instance_type)] += group.target_count or group.current_count
        return Capacity(dict(counts))


def check_resources(cluster: str, request: TeamRequest, capacity: Capacity, facts: dict[str, Accelerators]) -> None:
    """422 for a type the cluster has no instance group of, or more of any resource (instances, accelerators,
    vCPUs, memory, GPU partitions) than its groups hold; absolute borrow caps are held to the same."""
    offered = ", ".join(f"{t} ({n})" for t, n in sorted(capacity.counts.items())) or "none"
    with_accelerators = ", ".join(t for t in sorted(capacity.counts) if t in facts and facts[t].per_node) or "none"
    for key, quotas in (("resources", request.resources), ("absoluteBorrowLimits", request.absoluteBorrowLimits)):
        for i, quota in enumerate(quotas):
            have = capacity.counts.get(quota.instanceType)
            field = f"body.{key}[{i}]"
            if have is None:
                raise InvalidInput(
                    f"{cluster} has no instance group of type {quota.instanceType}; its instance types: {offered}.",
                    field=f"{field}.instanceType",
                    rule="instance_type_in_cluster",
                )
            if quota.instanceCount is not None and quota.instanceCount > have:
                raise InvalidInput(
                    f"{cluster} has {have} {quota.instanceType} instances; a quota of {quota.instanceCount} asks for"
                    f" more. Use at most {have}, or add instances to its instance groups first.",
                    field=f"{field}.instanceCount",
                    rule=f"at_most_{have}",
                )
            team_resources.check(cluster, field, quota, have, facts[quota.instanceType], with_accelerators)


def guaranteed(request: TeamRequest, facts: dict[str, Accelerators]) -> list[ResourceAmounts]:
    """What the quota reserves per instance type, SageMaker's ratios filled in (types EC2 does not describe
    are left out)."""
    return [team_resources.guaranteed(q, facts[q.instanceType]) for q in request.resources if q.instanceType in facts]


# ---------------------------------------------------------------------------- SageMaker parameters


def scheduler_config(request: GovernancePolicyRequest) -> dict[str, Any]:
    return {
        "PriorityClasses": [{"Name": p.name, "Weight": p.weight} for p in request.priorityClasses],
        "FairShare": "Enabled" if request.fairShare else "Disabled",
        "IdleResourceSharing": "Enabled" if request.idleResourceSharing else "Disabled",
    }


def quota_config(request: TeamRequest) -> dict[str, Any]:
    sharing: dict[str, Any] = {"Strategy": request.sharing}
    if request.borrowLimit is not None:
        sharing["BorrowLimit"] = request.borrowLimit
    if request.absoluteBorrowLimits:
        sharing["AbsoluteBorrowLimits"] = [team_resources.resource_config(r) for r in request.absoluteBorrowLimits]
    return {
        "ComputeQuotaResources": [team_resources.resource_config(r) for r in request.resources],
        "ResourceSharingConfig": sharing,
        "PreemptTeamTasks": request.preemptTeamTasks,
    }


def quota_target(team: str, request: TeamRequest) -> dict[str, Any]:
    return {"TeamName": team, "FairShareWeight": request.fairShareWeight}


def activation(request: TeamRequest) -> str:
    return "Enabled" if request.enabled else "Disabled"


# ---------------------------------------------------------------------------- real state, read back


def policy_of(described: dict[str, Any] | None) -> GovernancePolicyRequest | None:
    if described is None:
        return None
    config = described.get("SchedulerConfig") or {}
    return GovernancePolicyRequest(
        priorityClasses=[
            PriorityClassSpec(name=p["Name"], weight=int(p["Weight"])) for p in config.get("PriorityClasses") or []
        ],
        fairShare=config.get("FairShare", "Enabled") != "Disabled",
        idleResourceSharing=config.get("IdleResourceSharing") == "Enabled",
    )


def team_of(described: dict[str, Any]) -> TeamRequest:
    config = described.get("ComputeQuotaConfig") or {}
    sharing = config.get("ResourceSharingConfig") or {}
    lends_and_borrows = sharing.get("Strategy", "LendAndBorrow") == "LendAndBorrow"
    return TeamRequest(
        resources=[team_resources.quota_of(r) for r in config.get("ComputeQuotaResources") or []],
        sharing=sharing.get("Strategy", "LendAndBorrow"),
        borrowLimit=sharing.get("BorrowLimit") if lends_and_borrows else None,
        absoluteBorrowLimits=[
            team_resources.quota_of(r) for r in (sharing.get("AbsoluteBorrowLimits") or []) if lends_and_borrows
        ],
        preemptTeamTasks=config.get("PreemptTeamTasks", "LowerPriority"),
        fairShareWeight=int((described.get("ComputeQuotaTarget") or {}).get("FairShareWeight") or 0),
        enabled=described.get("ActivationState", "Enabled") != "Disabled",
    )


def team_view(
    described: dict[str, Any],
    managed: bool,
    queue_ready: bool,
    facts: dict[str, Accelerators] | None = None,
    usage: tuple[list[ResourceAmounts], list[ResourceAmounts]] = ([], []),
) -> TeamView:
    team = str((described.get("ComputeQuotaTarget") or {}).get("TeamName"))
    real = team_of(described)
    return TeamView(
        guaranteed=guaranteed(real, facts or {}),
        used=usage[0],
        borrowed=usage[1],
        team=team,
        namespace=namespace(team),
        queue=local_queue(team),
        quotaName=str(described.get("Name")),
        quotaId=str(described.get("ComputeQuotaId")),
        status=str(described.get("Status")),
        version=int(described.get("ComputeQuotaVersion") or 0),
        managed=managed,
        queueReady=queue_ready,
        **real.model_dump(),
    )


# ---------------------------------------------------------------------------- explicit diff


def _changes(want: dict[str, Any], have: dict[str, Any]) -> list[str]:
    return [f"{k}: {have.get(k)!r} -> {v!r}" for k, v in want.items() if have.get(k) != v]


def _canonical(request: Any) -> dict[str, Any]:
    data: dict[str, Any] = request.model_dump(mode="json")
    for key in ("priorityClasses", "resources", "absoluteBorrowLimits"):
        if key in data:
            data[key] = sorted(data[key], key=lambda item: str(next(iter(item.values()))))
    return data


def policy_plan(cluster: str, request: GovernancePolicyRequest, real: GovernancePolicyRequest | None) -> Plan:
    target = f"cluster scheduler config {config_name(cluster)}"
    if real is None:
        classes = ", ".join(f"{p.name} ({p.weight})" for p in request.priorityClasses) or "none"
        reason = f"{cluster} has no scheduler config; priority classes {classes}, fair share {request.fairShare}"
        return Plan(target, (Step("create", target, reason),))
    changed = _changes(_canonical(request), _canonical(real))
    if not changed:
        return Plan(target, ())
    return Plan(target, (Step("update", target, "; ".join(changed)),))


def _described(quota: InstanceQuota) -> str:
    given = quota.model_dump(exclude_none=True, exclude={"instanceType"})
    if "acceleratorPartition" in given:
        given["acceleratorPartition"] = f"{quota.acceleratorPartition.count} x {quota.acceleratorPartition.type}"  # type: ignore[union-attr]
    return f"{quota.instanceType} (" + ", ".join(f"{k} {v}" for k, v in given.items()) + ")"


def team_plan(cluster: str, team: str, request: TeamRequest, real: TeamRequest | None, managed: bool) -> Plan:
    target = f"compute quota {quota_name(cluster, team)} (team {team})"
    if real is None:
        counts = ", ".join(_described(r) for r in request.resources)
        reason = f"team {team} has no compute quota on {cluster}; {counts}, sharing {request.sharing}"
        return Plan(target, (Step("create", target, reason),))
    changed = _changes(_canonical(request), _canonical(real))
    if not changed:
        return Plan(target, ())
    if not managed:
        raise Conflict(
            f"The compute quota of team {team} on {cluster} was not created by Launchpod; change it where it was made.",
            details=[{"field": "path.team", "rule": "managed_by_launchpod", "message": team}],
        )
    return Plan(target, (Step("update", target, "; ".join(changed)),))


def team_delete_plan(cluster: str, team: str, exists: bool) -> Plan:
    """Deleting a team: its compute quota (the caller checked Launchpod created it), or nothing when it has none."""
    target = f"compute quota {quota_name(cluster, team)} (team {team})"
    if not exists:
        return Plan(target, ())
    reason = (
        f"team {team} has a compute quota on {cluster}, created by Launchpod; the add-on then removes its queue"
        f" {local_queue(team)} in namespace {namespace(team)}, with the tasks waiting in it"
    )
    return Plan(target, (Step("delete", target, reason),))


def check_job_queue(
    cluster: str,
    namespace_: str,
    queue: str | None,
    priority: str | None,
    queues: list[tuple[str, str]],
    classes: list[str],
) -> None:
    """422 for a job naming a LocalQueue that is not in its namespace, or a WorkloadPriorityClass that does not
    exist: Kueue would leave it waiting for ever (a Workload whose queue is missing is never admitted).
    ``queues``: (namespace, name) of every LocalQueue; ``classes``: every WorkloadPriorityClass."""
    if queue is not None and (namespace_, queue) not in queues:
        known = ", ".join(f"{name} (namespace {ns})" for ns, name in sorted(queues)) or "none: create a team first"
        raise InvalidInput(
            f"No LocalQueue {queue} in namespace {namespace_} on {cluster}. The teams' queues: {known}. Submit in"
            " the team's namespace hyperpod-ns-<team> with queue hyperpod-ns-<team>-localqueue.",
            field="body.queue",
            rule="existing_queue",
        )
    if priority is not None and priority not in classes:
        known = ", ".join(sorted(classes)) or "none: set the policy's priority classes first"
        raise InvalidInput(
            f"No WorkloadPriorityClass {priority} on {cluster}; its priority classes: {known}.",
            field="body.priority",
            rule="existing_priority_class",
        )
