"""Training plans through their use cases, with SageMaker faked: the offerings a search shows, a purchase
that needs the price named (a dry run buys nothing; the same purchase twice buys once), the groups a plan
serves, extensions, and the warning of a group added on a plan that has not started."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from launchpod.contracts.instance_groups import AddInstanceGroupRequest
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.training_plans import (
    BuyTrainingPlanRequest,
    ExtendTrainingPlanRequest,
    OfferingQuery,
    TrainingPlanView,
)
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups import preflight
from launchpod.domain.training_plans import Reservation, TrainingPlan
from launchpod.usecases import training_plans as cases
from pydantic import ValidationError

from tests.fakes.sagemaker import TrainingPlanMarket, offering

START = datetime(2026, 3, 1, 12, tzinfo=UTC)
SEARCH = {"instanceType": "ml.p5.48xlarge", "instanceCount": 2, "durationHours": 168}


def _offering(offering_id: str, zone: str, fee: str, start: datetime = START) -> dict:
    return offering(offering_id, zone, fee, start)


def _market(**kw) -> TrainingPlanMarket:
    offers = [_offering("tpo-a", "us-east-1a", "10080.00"), _offering("tpo-b", "us-east-1b", "10584.00")]
    return TrainingPlanMarket({"ml.p5.48xlarge": offers}, now=datetime(2026, 1, 1, tzinfo=UTC), **kw)


def _ports(market: TrainingPlanMarket) -> cases.TrainingPlanPorts:
    return cases.TrainingPlanPorts(sagemaker=market)


def _buy(**kw) -> BuyTrainingPlanRequest:
    return BuyTrainingPlanRequest(**{**SEARCH, "name": "p5-week", "offeringId": "tpo-a", "confirmPrice": "10080"} | kw)


def test_a_search_shows_each_offering_with_price_zone_and_window_and_says_why_when_none():
    market = _market()
    found = cases.search_offerings(OfferingQuery(**SEARCH), ports=_ports(market))
    first = found.items[0]
    assert (first.upfrontFee, first.currencyCode, first.availabilityZone) == ("10080.00", "USD", "us-east-1a")
    assert (first.startTime, first.endTime, first.durationHours) == (START, START + timedelta(days=7), 168)
    assert market.searched[0].target == "hyperpod-cluster"
    none = cases.search_offerings(OfferingQuery(**{**SEARCH, "instanceType": "ml.trn2.48xlarge"}), ports=_ports(market))
    assert none.items == [] and "ml.trn2.48xlarge" in (none.message or "")


def test_a_search_takes_whole_days_and_only_reservable_types():
    with pytest.raises(ValidationError, match="multiple of 24"):
        OfferingQuery(**{**SEARCH, "durationHours": 30})
    with pytest.raises(ValidationError):
        OfferingQuery(**{**SEARCH, "instanceType": "ml.g5.8xlarge"})


def test_a_dry_run_shows_the_price_and_buys_nothing():
    market = _market()
    planned = cases.buy(_buy(), True, ports=_ports(market))
    assert isinstance(planned, PlanView)
    assert "10080.00 USD" in planned.steps[0].reason and "us-east-1a" in planned.steps[0].reason
    assert market.bought == []


def test_a_purchase_without_the_offerings_price_is_refused_naming_it():
    market = _market()
    with pytest.raises(InvalidInput, match=r"10080\.00 USD") as refused:
        cases.buy(_buy(confirmPrice="9000"), False, ports=_ports(market))
    assert refused.value.details[0]["field"] == "body.confirmPrice"
    assert market.bought == []


def test_buying_twice_with_the_same_request_buys_once():
    market = _market()
    bought = cases.buy(_buy(), False, ports=_ports(market))
    assert isinstance(bought, TrainingPlanView)
    assert (bought.name, bought.status, bought.upfrontFee, bought.availabilityZone) == (
        "p5-week",
        "Scheduled",
        "10080.00",
        "us-east-1a",
    )
    again = cases.buy(_buy(), False, ports=_ports(market))
    assert isinstance(again, NoopView) and "already bought" in again.message
    assert market.bought == [("p5-week", "tpo-a")]


def test_the_same_name_on_another_reservation_is_a_conflict():
    market = _market()
    cases.buy(_buy(), False, ports=_ports(market))
    with pytest.raises(Conflict, match="another reservation"):
        cases.buy(_buy(offeringId="tpo-b", confirmPrice="10584.00"), False, ports=_ports(market))
    assert len(market.bought) == 1


def test_an_offering_no_longer_offered_is_refused_before_buying():
    market = _market()
    with pytest.raises(Conflict, match="search again"):
        cases.buy(_buy(offeringId="tpo-gone"), False, ports=_ports(market))
    assert market.bought == []


def test_plans_list_the_groups_using_them_by_cluster():
    market = _market()
    cases.buy(_buy(), False, ports=_ports(market))
    arn = market.plans["p5-week"]["TrainingPlanArn"]
    market.clusters["hp"] = {
        "ClusterName": "hp",
        "InstanceGroups": [
            {"InstanceGroupName": "gpu", "TrainingPlanArn": arn, "TargetCount": 2, "CurrentCount": 1},
            {"InstanceGroupName": "system", "TargetCount": 1, "CurrentCount": 1},
        ],
    }
    listed = cases.list_plans(None, ports=_ports(market)).items
    assert [(u.cluster, u.instanceGroup, u.targetCount, u.currentCount) for u in listed[0].usage] == [
        ("hp", "gpu", 2, 1)
    ]
    assert cases.list_plans("Active", ports=_ports(market)).items == []
    assert cases.get_plan("p5-week", ports=_ports(market)).usage[0].instanceGroup == "gpu"


def test_an_extension_needs_its_price_and_applies_once():
    end = START + timedelta(days=7)
    offer = {
        "TrainingPlanExtensionOfferingId": "tpeo-1",
        "AvailabilityZone": "us-east-1a",
        "StartDate": end,
        "EndDate": end + timedelta(days=1),
        "DurationHours": 24,
        "UpfrontFee": "1440.00",
        "CurrencyCode": "USD",
    }
    market = _market(extension_offers={"p5-week": [offer]})
    cases.buy(_buy(), False, ports=_ports(market))
    listed = cases.extension_offerings("p5-week", ports=_ports(market))
    assert [(o.offeringId, o.upfrontFee, o.endDate) for o in listed.items] == [("tpeo-1", "1440.00", offer["EndDate"])]
    dry = cases.extend(
        "p5-week", ExtendTrainingPlanRequest(offeringId="tpeo-1", confirmPrice="1440"), True, ports=_ports(market)
    )
    assert isinstance(dry, PlanView) and "1440.00 USD" in dry.steps[0].reason and market.extended == []
    with pytest.raises(InvalidInput, match=r"1440\.00"):
        cases.extend(
            "p5-week", ExtendTrainingPlanRequest(offeringId="tpeo-1", confirmPrice="1"), False, ports=_ports(market)
        )
    done = cases.extend(
        "p5-week", ExtendTrainingPlanRequest(offeringId="tpeo-1", confirmPrice="1440.00"), False, ports=_ports(market)
    )
    assert isinstance(done, TrainingPlanView) and done.endTime == offer["EndDate"]
    again = cases.extend(
        "p5-week", ExtendTrainingPlanRequest(offeringId="tpeo-1", confirmPrice="1440.00"), False, ports=_ports(market)
    )
    assert isinstance(again, NoopView) and market.extended == ["tpeo-1"]


def test_a_group_on_a_plan_not_started_yet_is_placed_with_a_warning_saying_when():
    arn = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"
    plan = TrainingPlan(
        "p5-week",
        arn,
        status="Scheduled",
        start_time=START,
        total_instance_count=2,
        available_instance_count=2,
        reservation=Reservation(instance_type="ml.p5.48xlarge", zone="us-east-1a"),
    )
    request = AddInstanceGroupRequest(
        group="gpu", instanceType="ml.p5.48xlarge", instanceCount=2, capacityType="trainingPlan", trainingPlanArn=arn
    )
    placed = preflight.training_plan_placement(request, plan, "us-east-1a", "us-east-1a")
    assert placed.zone == "us-east-1a"
    assert len(placed.warnings) == 1 and "2026-03-01 12:00 UTC" in placed.warnings[0]
    active = preflight.training_plan_placement(request, replace(plan, status="Active"), "us-east-1a", "us-east-1a")
    assert active.warnings == []


def test_a_first_group_on_a_plan_is_checked_against_the_clusters_zone_and_carries_the_plan():
    from launchpod.contracts.hyperpod import CreateHyperPodInput
    from launchpod.domain.clusters import hyperpod

    arn = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"
    plan = TrainingPlan(
        "p5-week",
        arn,
        status="Scheduled",
        total_instance_count=2,
        available_instance_count=2,
        reservation=Reservation(instance_type="ml.p5.48xlarge", zone="us-east-1a"),
    )
    field = "body.instanceGroups.0.trainingPlanArn"
    with pytest.raises(InvalidInput, match="availabilityZone to us-east-1a") as refused:
        preflight.check_plan_at_create(field, arn, "ml.p5.48xlarge", 2, "us-east-1b", plan)
    assert refused.value.details[0]["field"] == field
    with pytest.raises(InvalidInput, match="Expired"):
        preflight.check_plan_at_create(field, arn, "ml.p5.48xlarge", 2, "us-east-1a", replace(plan, status="Expired"))
    preflight.check_plan_at_create(field, arn, "ml.p5.48xlarge", 2, "us-east-1a", plan)
    request = CreateHyperPodInput(
        name="c1",
        availabilityZone="us-east-1a",
        instanceGroups=[{"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2, "trainingPlanArn": arn}],
    )
    [spec] = hyperpod.instance_groups(request, "arn:aws:iam::123456789012:role/r", "s3://b/scripts/")
    assert spec["TrainingPlanArn"] == arn
