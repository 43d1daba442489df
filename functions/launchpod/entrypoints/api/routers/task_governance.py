"""Task governance's cluster policy (scheduler config) and teams (compute quotas): read, and changed or
deleted at once through SageMaker after an explicit diff (200 NOOP when equal or already gone, ``dryRun``
answers the plan), by usecases/task_governance.py."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

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
from launchpod.entrypoints.api.routing import ClusterPath, DryRunQuery, JsonBody, Planned, json_response, route
from launchpod.usecases import task_governance as cases

router = APIGatewayRouter()


@route(router, "get_governance_policy")
def get_governance_policy(name: ClusterPath) -> GovernancePolicyView:
    return cases.policy(name, ports=cases.real())


@route(router, "set_governance_policy")
def set_governance_policy(
    name: ClusterPath, body: JsonBody[GovernancePolicyRequest], dryRun: DryRunQuery = False
) -> Planned[PolicyAppliedView]:
    return json_response(cases.set_policy(name, body, dryRun, ports=cases.real()))


@route(router, "list_teams")
def list_teams(name: ClusterPath) -> TeamListView:
    return cases.teams(name, ports=cases.real())


@route(router, "put_team")
def put_team(
    name: ClusterPath, team: Annotated[TeamName, Path()], body: JsonBody[TeamRequest], dryRun: DryRunQuery = False
) -> Planned[TeamAppliedView]:
    return json_response(cases.put_team(name, team, body, dryRun, ports=cases.real()))


@route(router, "delete_team")
def delete_team(
    name: ClusterPath,
    team: Annotated[TeamName, Path()],
    confirm: Annotated[str, Query(max_length=64)] = "",
    dryRun: DryRunQuery = False,
) -> Planned[DeleteTeamView]:
    return json_response(cases.delete_team(name, team, confirm, dryRun, ports=cases.real()))
