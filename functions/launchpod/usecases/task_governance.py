"""Task governance's policy and teams, read and changed at once (SageMaker applies them; no workflow):
each change is planned against the real scheduler config or quota first, so an equal request is NOOP and
``dryRun`` answers the plan. The ports are only the calls made, so unit tests pass in-memory fakes. A change
needs the task governance add-on ACTIVE; reads answer what SageMaker has without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.task_governance import (
    DeleteTeamView,
    GovernancePolicyRequest,
    GovernancePolicyView,
    PolicyAppliedView,
    ResourceAmounts,
    TeamAppliedView,
    TeamListView,
    TeamRequest,
    TeamView,
)
from launchpod.domain import features, ownership, team_resources
from launchpod.domain import task_governance as tg
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import Conflict, InvalidInput, LaunchpodError, NotFound
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.plan import Plan
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import AddonReader, InstanceFacts, KubeReader
from launchpod.usecases.proposal import at_once


class Governance(Protocol):
    """SageMaker's scheduler configs and compute quotas (adapters.aws.task_governance)."""

    def scheduler_config(self, cluster_arn: str) -> dict[str, Any] | None: ...
    def create_scheduler_config(
        self, name: str, cluster_arn: str, config: dict[str, Any], tags: dict[str, str]
    ) -> None: ...
    def update_scheduler_config(self, config_id: str, version: int, config: dict[str, Any]) -> None: ...
    def quotas(self, cluster_arn: str) -> list[dict[str, Any]]: ...
    def create_quota(self, params: dict[str, Any], tags: dict[str, str]) -> None: ...
    def update_quota(self, quota_id: str, version: int, params: dict[str, Any]) -> None: ...
    def delete_quota(self, quota_id: str) -> None: ...
    def tags(self, arn: str) -> dict[str, str]: ...


class HyperPodClusters(Protocol):
    """SageMaker's DescribeCluster of a HyperPod cluster, None when there is none (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...


@dataclass(frozen=True)
class GovernancePorts:
    sagemaker: HyperPodClusters
    eks: AddonReader
    governance: Governance
    read: KubeReader
    prefix: str  # Launchpod's tag prefix: what it tags, and how it knows a quota is its own
    instances: InstanceFacts


def real() -> GovernancePorts:
    """The deployed adapters (runtime.wiring)."""
    return GovernancePorts(
        sagemaker=wiring.sagemaker(),
        eks=wiring.eks(),
        governance=wiring.task_governance(),
        read=wiring.kube().read,
        prefix=settings().resource_prefix,
        instances=wiring.instance_facts(),
    )


@dataclass(frozen=True)
class Cluster:
    """What the routes read before anything: the HyperPod cluster (DescribeCluster) and Launchpod's tag prefix."""

    name: str
    hyperpod: HyperPodCluster
    prefix: str

    @property
    def arn(self) -> str:
        return self.hyperpod.arn


@dataclass(frozen=True)
class Outcome:
    """A planned change: ``plan`` (empty: NOOP), and once applied ``applied`` says CREATED or UPDATED."""

    plan: Plan
    applied: str | None = None


def _cluster(name: str, ports: GovernancePorts, *, needs_addon: bool) -> Cluster:
    """The HyperPod cluster (404 without one); a change also needs the task governance add-on (409 naming it)."""
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise hyperpod.no_hyperpod(name)
    if needs_addon:
        addon = ports.eks.addons(name).get(features.task_governance().addon)
        tg.require_addon(name, str(addon.status) if addon else None)
    return Cluster(name=name, hyperpod=found, prefix=ports.prefix)


def _queue_ready(read: KubeReader, cluster: str, team: str) -> bool:
    queue = {
        "apiVersion": tg.KUEUE_API,
        "kind": "LocalQueue",
        "metadata": {"name": tg.local_queue(team), "namespace": tg.namespace(team)},
    }
    try:
        return read(cluster, queue) is not None
    except LaunchpodError:  # Kueue's kinds are not served (the add-on is still starting)
        return False


def _facts(instances: InstanceFacts, cluster: Cluster) -> dict[str, Accelerators]:
    """What each of the cluster's instance types carries (EC2's facts)."""
    return {t: instances.of(t) for t in tg.Capacity.of(cluster.hyperpod).counts}


def _kueue(read: KubeReader, cluster: str, kind: str, name: str) -> dict[str, Any] | None:
    try:
        return read(cluster, {"apiVersion": tg.KUEUE_API, "kind": kind, "metadata": {"name": name}})
    except LaunchpodError:  # Kueue's kinds are not served (the add-on is still starting)
        return None


def _usage(
    read: KubeReader, cluster: str, team: str, facts: dict[str, Accelerators]
) -> tuple[list[ResourceAmounts], list[ResourceAmounts]]:
    """What the team's ClusterQueue reports it uses and borrows, per instance type (its ResourceFlavors'
    nodeLabels say which)."""
    queue = _kueue(read, cluster, "ClusterQueue", tg.cluster_queue(team))
    flavors: dict[str, str] = {}
    for usage in ((queue or {}).get("status") or {}).get("flavorsUsage") or []:
        flavor = _kueue(read, cluster, "ResourceFlavor", str(usage.get("name")))
        labels = ((flavor or {}).get("spec") or {}).get("nodeLabels") or {}
        flavors[str(usage.get("name"))] = labels.get("node.kubernetes.io/instance-type", str(usage.get("name")))
    return team_resources.usage(queue, flavors, facts)


def _priority_classes(read: KubeReader, cluster: str, names: list[str]) -> list[str]:
    out = []
    for name in names:
        wpc = tg.priority_class(name)
        obj = {"apiVersion": tg.KUEUE_API, "kind": "WorkloadPriorityClass", "metadata": {"name": wpc}}
        try:
            if read(cluster, obj) is not None:
                out.append(wpc)
        except LaunchpodError:
            return out
    return out


# ---------------------------------------------------------------------------- the policy


def _policy_view(cluster: Cluster, gov: Governance, read: KubeReader) -> GovernancePolicyView:
    described = gov.scheduler_config(cluster.arn)
    real = tg.policy_of(described)
    if described is None or real is None:
        return GovernancePolicyView(cluster=cluster.name, configured=False)
    return GovernancePolicyView(
        cluster=cluster.name,
        configured=True,
        priorityClasses=real.priorityClasses,
        fairShare=real.fairShare,
        idleResourceSharing=real.idleResourceSharing,
        status=described.get("Status"),
        version=described.get("ClusterSchedulerConfigVersion"),
        workloadPriorityClasses=_priority_classes(read, cluster.name, [p.name for p in real.priorityClasses]),
    )


def _set_policy(cluster: Cluster, request: GovernancePolicyRequest, gov: Governance, dry_run: bool) -> Outcome:
    described = gov.scheduler_config(cluster.arn)
    plan = tg.policy_plan(cluster.name, request, tg.policy_of(described))
    if plan.empty or dry_run:
        return Outcome(plan)
    config = tg.scheduler_config(request)
    if described is None:
        tags = ownership.aws_tags(cluster.name, cluster.prefix)
        gov.create_scheduler_config(tg.config_name(cluster.name), cluster.arn, config, tags)
        return Outcome(plan, "CREATED")
    gov.update_scheduler_config(
        described["ClusterSchedulerConfigId"], int(described["ClusterSchedulerConfigVersion"]), config
    )
    return Outcome(plan, "UPDATED")


# ---------------------------------------------------------------------------- teams


def _team_quota(gov: Governance, cluster: Cluster, team: str) -> dict[str, Any] | None:
    return next(
        (q for q in gov.quotas(cluster.arn) if (q.get("ComputeQuotaTarget") or {}).get("TeamName") == team), None
    )


def _managed(gov: Governance, cluster: Cluster, quota: dict[str, Any]) -> bool:
    return ownership.owns_aws(gov.tags(quota["ComputeQuotaArn"]), cluster.name, cluster.prefix)


def _view_of(cluster: Cluster, quota: dict[str, Any], ports: GovernancePorts) -> TeamView:
    team = quota["ComputeQuotaTarget"]["TeamName"]
    facts = _facts(ports.instances, cluster)
    return tg.team_view(
        quota,
        _managed(ports.governance, cluster, quota),
        _queue_ready(ports.read, cluster.name, team),
        facts,
        _usage(ports.read, cluster.name, team, facts),
    )


def _team_views(cluster: Cluster, ports: GovernancePorts) -> TeamListView:
    items = [_view_of(cluster, q, ports) for q in ports.governance.quotas(cluster.arn)]
    return TeamListView(cluster=cluster.name, items=sorted(items, key=lambda t: t.team))


def _team_view(cluster: Cluster, team: str, ports: GovernancePorts) -> TeamView:
    quota = _team_quota(ports.governance, cluster, team)
    if quota is None:
        raise NotFound(f"{cluster.name} has no team {team}; list them with GET /api/clusters/{cluster.name}/teams.")
    return _view_of(cluster, quota, ports)


def _put_team(cluster: Cluster, team: str, request: TeamRequest, ports: GovernancePorts, dry_run: bool) -> Outcome:
    gov = ports.governance
    tg.check_resources(cluster.name, request, tg.Capacity.of(cluster.hyperpod), _facts(ports.instances, cluster))
    quota = _team_quota(gov, cluster, team)
    managed = quota is not None and _managed(gov, cluster, quota)
    plan = tg.team_plan(cluster.name, team, request, tg.team_of(quota) if quota else None, managed)
    if plan.empty or dry_run:
        return Outcome(plan)
    params = {
        "ComputeQuotaConfig": tg.quota_config(request),
        "ComputeQuotaTarget": tg.quota_target(team, request),
        "ActivationState": tg.activation(request),
    }
    if quota is None:
        tags = ownership.aws_tags(cluster.name, cluster.prefix)
        gov.create_quota({"Name": tg.quota_name(cluster.name, team), "ClusterArn": cluster.arn, **params}, tags)
        return Outcome(plan, "CREATED")
    gov.update_quota(quota["ComputeQuotaId"], int(quota["ComputeQuotaVersion"]), params)
    return Outcome(plan, "UPDATED")


def _delete_team(
    cluster: Cluster, team: str, confirm: str, gov: Governance, dry_run: bool
) -> DeleteTeamView | NoopView | PlanView:
    if confirm != team:
        raise InvalidInput(
            f"Type the team's name, {team}, as confirm to delete it; its quota, namespace queue and the tasks"
            " waiting in it are removed.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    quota = _team_quota(gov, cluster, team)
    if quota is not None and not _managed(gov, cluster, quota):
        raise Conflict(
            f"The compute quota of team {team} on {cluster.name} was not created by Launchpod; it is left in place.",
            details=[{"field": "path.team", "rule": "managed_by_launchpod", "message": team}],
        )
    plan = tg.team_delete_plan(cluster.name, team, quota is not None)

    def apply() -> DeleteTeamView:
        assert quota is not None  # an empty plan is never applied
        gov.delete_quota(quota["ComputeQuotaId"])
        message = f"Deleted the compute quota of team {team}; the add-on removes its queues."
        return DeleteTeamView(cluster=cluster.name, team=team, deleted=True, message=message)

    teams = f"GET /api/clusters/{cluster.name}/teams"
    noop = f"{cluster.name} has no team {team}; nothing to delete (list them with {teams})."
    return at_once(plan, dry_run, noop, apply)


# ---------------------------------------------------------------------------- what the routes call


def policy(name: str, *, ports: GovernancePorts) -> GovernancePolicyView:
    """The cluster's scheduler config as a policy (configured False when it has none)."""
    return _policy_view(_cluster(name, ports, needs_addon=False), ports.governance, ports.read)


def set_policy(
    name: str, request: GovernancePolicyRequest, dry_run: bool, *, ports: GovernancePorts
) -> PolicyAppliedView | NoopView | PlanView:
    """The policy created or updated at once: NOOP when it already matches, the plan on a dry run."""
    cluster = _cluster(name, ports, needs_addon=True)
    outcome = _set_policy(cluster, request, ports.governance, dry_run)

    def applied() -> PolicyAppliedView:
        view = _policy_view(cluster, ports.governance, ports.read)
        verb = "Created" if outcome.applied == "CREATED" else "Updated"
        message = f"{verb} the task governance policy of {name}; the add-on turns its priority classes into Kueue's."
        return PolicyAppliedView(status=outcome.applied, message=message, policy=view)  # type: ignore[arg-type]

    return at_once(outcome.plan, dry_run, f"The task governance policy of {name} already matches; no changes.", applied)


def teams(name: str, *, ports: GovernancePorts) -> TeamListView:
    """The cluster's teams (compute quotas), by name, with whether Launchpod manages each and its queue is up."""
    return _team_views(_cluster(name, ports, needs_addon=False), ports)


def put_team(
    name: str, team: str, request: TeamRequest, dry_run: bool, *, ports: GovernancePorts
) -> TeamAppliedView | NoopView | PlanView:
    """The team's quota created or updated at once: NOOP when it already matches, the plan on a dry run."""
    cluster = _cluster(name, ports, needs_addon=True)
    outcome = _put_team(cluster, team, request, ports, dry_run)

    def applied() -> TeamAppliedView:
        view = _team_view(cluster, team, ports)
        verb = "Created" if outcome.applied == "CREATED" else "Updated"
        message = (
            f"{verb} the compute quota of team {team}. Submit its jobs in namespace {view.namespace} with queue"
            f" {view.queue}."
        )
        return TeamAppliedView(status=outcome.applied, message=message, team=view)  # type: ignore[arg-type]

    return at_once(outcome.plan, dry_run, f"The quota of team {team} on {name} already matches; no changes.", applied)


def delete_team(
    name: str, team: str, confirm: str, dry_run: bool, *, ports: GovernancePorts
) -> DeleteTeamView | NoopView | PlanView:
    """The team's quota deleted, once ``confirm`` names it and only when Launchpod created it: NOOP when the
    team has none (deleted already), the plan on a dry run."""
    return _delete_team(_cluster(name, ports, needs_addon=False), team, confirm, ports.governance, dry_run)
