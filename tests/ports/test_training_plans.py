"""The training plans' contract: the in-memory fake (tests/fakes/sagemaker.py TrainingPlanMarket) and
adapters.aws.sagemaker on the sandbox's SageMaker answer each case alike: a plan bought from an offering reads
back Scheduled with the offering's capacity, a second plan of one name is refused (None), and the listing
filters by status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from launchpod.adapters.aws.sagemaker import SageMaker as Adapter
from launchpod.usecases.ports import TrainingPlans

from sandbox.aws import sagemaker as hyperpod
from tests.fakes.sagemaker import TrainingPlanMarket

START = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
QUERY = {
    "InstanceType": "ml.p5.48xlarge",
    "InstanceCount": 2,
    "DurationHours": 24,
    "TargetResources": ["hyperpod-cluster"],
    "StartTimeAfter": START,
}


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
                "EndTime": START + timedelta(hours=24),
            }
        ],
    }


@pytest.fixture(params=["fake", "sagemaker"])
def plans(request: pytest.FixtureRequest) -> TrainingPlans:
    if request.param == "fake":
        return TrainingPlanMarket({"ml.p5.48xlarge": [_offering()]})
    hyperpod.install()  # the sandbox's SageMaker, training plans included
    return Adapter()


def test_a_bought_plan_reads_back_scheduled_with_the_offerings_capacity(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    reserved = offering["ReservedCapacityOfferings"][0]
    arn = plans.create_training_plan("p5-week", offering["TrainingPlanOfferingId"])
    assert arn is not None and arn.endswith(":training-plan/p5-week")
    plan = plans.training_plan(arn)
    assert plan is not None
    assert (plan["TrainingPlanName"], plan["Status"], plan["TotalInstanceCount"]) == ("p5-week", "Scheduled", 2)
    assert (plan["StartTime"], plan["EndTime"]) == (reserved["StartTime"], reserved["EndTime"])


def test_a_second_plan_of_one_name_is_refused(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    first = plans.create_training_plan("p5-week", offering["TrainingPlanOfferingId"])
    assert first is not None
    assert plans.create_training_plan("p5-week", offering["TrainingPlanOfferingId"]) is None


def test_the_listing_filters_by_status(plans: TrainingPlans) -> None:
    offering = plans.search_training_plan_offerings(QUERY)[0]
    plans.create_training_plan("p5-week", offering["TrainingPlanOfferingId"])
    assert [p["TrainingPlanName"] for p in plans.training_plans("Scheduled")] == ["p5-week"]
    assert plans.training_plans("Active") == []
    assert [p["TrainingPlanName"] for p in plans.training_plans()] == ["p5-week"]
