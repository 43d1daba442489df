"""Training plans: search offerings, buy one at the price the caller confirms, list and describe plans with
the instance groups using them, search extensions and extend; by usecases/training_plans.py."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import HyperPodRegion
from launchpod.contracts.training_plans import (
    BuyTrainingPlanRequest,
    ExtendTrainingPlanRequest,
    ExtensionOfferingListView,
    IsoDateTime,
    OfferingListView,
    PlanStatus,
    ReservedInstanceType,
    TargetResource,
    TrainingPlanListView,
    TrainingPlanName,
    TrainingPlanView,
)
from launchpod.entrypoints.api.routing import DryRunQuery, JsonBody, Planned, json_response, route
from launchpod.usecases import training_plans as cases

router = APIGatewayRouter()


@route(router, "search_training_plan_offerings")
def search_training_plan_offerings(
    instanceType: Annotated[ReservedInstanceType, Query()],
    instanceCount: Annotated[int, Query(ge=1, le=256)],
    durationHours: Annotated[int, Query(ge=24, le=4368, multiple_of=24)] = 24,
    startTimeAfter: Annotated[IsoDateTime | None, Query()] = None,
    endTimeBefore: Annotated[IsoDateTime | None, Query()] = None,
    target: Annotated[TargetResource, Query()] = "hyperpod-cluster",
    regions: Annotated[list[HyperPodRegion] | None, Query()] = None,
) -> OfferingListView:
    query = cases.offering_query(
        instanceType=instanceType,
        instanceCount=instanceCount,
        durationHours=durationHours,
        startTimeAfter=startTimeAfter,
        endTimeBefore=endTimeBefore,
        target=target,
        regions=regions,
    )
    return cases.search_offerings(query, ports=cases.real())


@route(router, "buy_training_plan")
def buy_training_plan(body: JsonBody[BuyTrainingPlanRequest], dryRun: DryRunQuery = False) -> Planned[TrainingPlanView]:
    return json_response(cases.buy(body, dryRun, ports=cases.real()))


@route(router, "list_training_plans")
def list_training_plans(status: Annotated[PlanStatus | None, Query()] = None) -> TrainingPlanListView:
    return cases.list_plans(status, ports=cases.real())


@route(router, "get_training_plan")
def get_training_plan(plan: Annotated[TrainingPlanName, Path()]) -> TrainingPlanView:
    return cases.get_plan(plan, ports=cases.real())


@route(router, "search_training_plan_extensions")
def search_training_plan_extensions(plan: Annotated[TrainingPlanName, Path()]) -> ExtensionOfferingListView:
    return cases.extension_offerings(plan, ports=cases.real())


@route(router, "extend_training_plan")
def extend_training_plan(
    plan: Annotated[TrainingPlanName, Path()], body: JsonBody[ExtendTrainingPlanRequest], dryRun: DryRunQuery = False
) -> Planned[TrainingPlanView]:
    return json_response(cases.extend(plan, body, dryRun, ports=cases.real()))
