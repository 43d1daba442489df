"""Task governance's cluster policy (scheduler config) and teams (compute quotas): read, and changed at
once through SageMaker after an explicit diff (200 NOOP when equal, ``dryRun`` answers the plan)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.task_governance import (
    DeleteTeamView,
    GovernancePolicyRequest,
    GovernancePolicyView,
    PolicyAppliedView,
    TeamAppliedView,
    TeamListView,
    TeamName,
    TeamRequest,
)
from launchpod.domain import features
from launchpod.domain import task_governance as tg
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import NotFound
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import task_governance as cases

router = APIGatewayRouter()


def _cluster(name: str, *, needs_addon: bool) -> cases.Cluster:
    described = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if described is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    if needs_addon:
        addon = wiring.eks().addons(name).get(features.task_governance().addon)
        tg.require_addon(name, str(addon.get("status")) if addon else None)
    return cases.Cluster(name=name, described=described, prefix=settings().resource_prefix)


def _answer(outcome: cases.Outcome, dry_run: bool, noop: str, applied: Any) -> Response[Any]:
    if outcome.plan.empty:
        return json_response(NoopView(message=noop))
    if dry_run:
        return json_response(PlanView(target=outcome.plan.target, steps=outcome.plan.views()))
    return json_response(applied())


@route(router, "get_governance_policy")
def get_governance_policy(name: Annotated[ClusterName, Path()]) -> GovernancePolicyView:
    return cases.policy_view(_cluster(name, needs_addon=False), wiring.task_governance(), k8s.read)


@route(router, "set_governance_policy")
def set_governance_policy(
    name: Annotated[ClusterName, Path()],
    body: Annotated[GovernancePolicyRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[PolicyAppliedView | NoopView | PlanView]:
    cluster = _cluster(name, needs_addon=True)
    gov = wiring.task_governance()
    outcome = cases.set_policy(cluster, body, gov, dryRun)

    def applied() -> PolicyAppliedView:
        policy = cases.policy_view(cluster, gov, k8s.read)
        verb = "Created" if outcome.applied == "CREATED" else "Updated"
        message = f"{verb} the task governance policy of {name}; the add-on turns its priority classes into Kueue's."
        return PolicyAppliedView(status=outcome.applied, message=message, policy=policy)  # type: ignore[arg-type]

    return _answer(outcome, dryRun, f"The task governance policy of {name} already matches; no changes.", applied)


@route(router, "list_teams")
def list_teams(name: Annotated[ClusterName, Path()]) -> TeamListView:
    return cases.team_views(_cluster(name, needs_addon=False), wiring.task_governance(), k8s.read)


@route(router, "put_team")
def put_team(
    name: Annotated[ClusterName, Path()],
    team: Annotated[TeamName, Path()],
    body: Annotated[TeamRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[TeamAppliedView | NoopView | PlanView]:
    cluster = _cluster(name, needs_addon=True)
    gov = wiring.task_governance()
    outcome = cases.put_team(cluster, team, body, gov, dryRun)

    def applied() -> TeamAppliedView:
        view = cases.team_view(cluster, team, gov, k8s.read)
        verb = "Created" if outcome.applied == "CREATED" else "Updated"
        message = (
            f"{verb} the compute quota of team {team}. Submit its jobs in namespace {view.namespace} with queue"
            f" {view.localQueue}."
        )
        return TeamAppliedView(status=outcome.applied, message=message, team=view)  # type: ignore[arg-type]

    return _answer(outcome, dryRun, f"The quota of team {team} on {name} already matches; no changes.", applied)


@route(router, "delete_team")
def delete_team(
    name: Annotated[ClusterName, Path()],
    team: Annotated[TeamName, Path()],
    confirm: Annotated[str, Query(max_length=64)] = "",
) -> DeleteTeamView:
    return cases.delete_team(_cluster(name, needs_addon=False), team, confirm, wiring.task_governance())
