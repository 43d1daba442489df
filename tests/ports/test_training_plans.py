"""The training plans' contract: the in-memory fake (tests/fakes/sagemaker.py TrainingPlanMarket) and
adapters.aws.sagemaker on the sandbox's SageMaker answer each case alike, as the records of
domain.training_plans: a plan bought from an offering reads back Scheduled with the offering's capacity, a
second plan of one name is refused (None), the listing filters by status, and an extension moves the plan's
end and is recorded once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from launchpod.adapters.aws.sagemaker import SageMaker as Adapter
from launchpod.domain.training_plans import CapacitySearch, Reservation, TrainingPlan, TrainingPlanExtension
from launchpod.usecases.ports import TrainingPlans

from sandbox.aws import sagemaker as hyperpod
from tests.fakes.sagemaker import TrainingPlanMarket

START = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
END = START + timedelta(hours=24)
QUERY = CapacitySearch("ml.p5.48xlarge", 2, 24, "hyperpod-cluster", start_after=START)


def _offering() -> dict[str, Any]:
    """An offering as SearchTrainingPlanOfferings gives one (the fake's only one)."""
    return {
        "TrainingPlanOfferingId": "tpo-0123456789abcdef",
        "TargetResources": ["hyperpod-cluster"],
        "DurationHours": 24,
        "UpfrontFee": "1234.56",
        "CurrencyCode": "USD",
        "ReservedCapacityOfferings": [
            {
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": 2,
                "AvailabilityZone": "us-east-1a",
                "StartTime": START,
                "EndTime": END,
            }
        ],
    }


def _extension() -> dict[str, Any]:
    """A day's extension offering of the plan, as SearchTrainingPlanOfferings gives one for its ARN."""
    return {
        "TrainingPlanExtensionOfferingId": "tpeo-0123456789abcdef",
        "AvailabilityZone": "us-east-1a",
        "StartDate": END,
        "EndDate": END + timedelta(hours=24),
        "DurationHours": 24,
        "UpfrontFee": "1234.56",
        "CurrencyCode": "USD",
    }


@pytest.fixture(params=["fake", "sagemaker"])
def plans(request: pytest.FixtureRequest) -> TrainingPlans:
    if request.param == "fake":
        return TrainingPlanMarket({"ml.p5.48xlarge": [_offering()]}, extension_offers={"p5-week": [_extension()]})
    hyperpod.install()  # the sandbox's SageMaker, training plans included
    return Adapter()


def test_a_bought_plan_reads_back_scheduled_with_the_offerings_capacity(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    reserved = offering.reservation
    start, end = reserved.start_time, reserved.end_time
    assert start is not None and start >= START and end == start + timedelta(hours=24)
    assert (offering.duration_hours, offering.target_resources, reserved) == (
        24,
        ("hyperpod-cluster",),
        Reservation("ml.p5.48xlarge", 2, "us-east-1a", start, end),
    )
    assert float(offering.upfront_fee or 0) > 0 and offering.currency_code == "USD"
    arn = plans.create_training_plan("p5-week", offering.offering_id)
    assert arn is not None and arn.endswith(":training-plan/p5-week")
    plan = plans.training_plan(arn)
    assert isinstance(plan, TrainingPlan)
    assert (plan.name, plan.arn, plan.status, plan.total_instance_count, plan.available) == (
        "p5-week",
        arn,
        "Scheduled",
        2,
        2,
    )
    assert (plan.start_time, plan.end_time, plan.upfront_fee) == (start, end, offering.upfront_fee)
    assert (plan.reservation.instance_type, plan.reservation.instance_count, plan.reservation.zone) == (
        "ml.p5.48xlarge",
        2,
        "us-east-1a",
    )


def test_a_second_plan_of_one_name_is_refused(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    first = plans.create_training_plan("p5-week", offering.offering_id)
    assert first is not None
    assert plans.create_training_plan("p5-week", offering.offering_id) is None


def test_the_listing_filters_by_status(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    plans.create_training_plan("p5-week", offering.offering_id)
    assert [p.name for p in plans.training_plans("Scheduled")] == ["p5-week"]
    assert plans.training_plans("Active") == []
    listed = [(p.name, p.status, p.end_time) for p in plans.training_plans()]
    assert listed == [("p5-week", "Scheduled", offering.reservation.end_time)]


def test_an_extension_moves_the_plans_end_and_is_recorded_once(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    arn = plans.create_training_plan("p5-week", offering.offering_id)
    assert arn is not None and offering.reservation.end_time is not None
    end = offering.reservation.end_time
    day = next(o for o in plans.training_plan_extension_offerings(arn) if o.duration_hours == 24)
    assert (day.start_date, day.end_date, day.currency_code) == (end, end + timedelta(hours=24), "USD")
    assert plans.training_plan_extensions(arn) == []
    assert plans.extend_training_plan(day.offering_id) == [TrainingPlanExtension(day.offering_id)]
    assert plans.training_plan_extensions(arn) == [TrainingPlanExtension(day.offering_id)]
    plan = plans.training_plan(arn)
    assert plan is not None and plan.end_time == day.end_date
