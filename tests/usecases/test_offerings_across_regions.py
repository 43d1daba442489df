"""A capacity search across Regions: each Region asked, everything found ranked as one list (earliest start,
then lowest fee), each offering naming its Region; a search of one Region keeps SageMaker's order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from launchpod.adapters.aws.sagemaker import plan_offering
from launchpod.contracts.training_plans import OfferingSearch
from launchpod.domain.training_plans import CapacitySearch, TrainingPlanOffering
from launchpod.runtime import wiring
from launchpod.usecases import training_plans as cases

from tests.fakes.sagemaker import TrainingPlanMarket, offering

MARCH = datetime(2026, 3, 1, 12, tzinfo=UTC)
SEARCH = {"instanceType": "ml.p5.48xlarge", "instanceCount": 2, "durationHours": 168}


class RegionalMarket(TrainingPlanMarket):
    """Each Region its own offerings: the Region a search is sent to decides what it finds."""

    def __init__(self, by_region: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__({}, now=datetime(2026, 1, 1, tzinfo=UTC))
        self.by_region, self.asked = by_region, []

    def search_training_plan_offerings(self, search: CapacitySearch) -> list[TrainingPlanOffering]:
        self.asked.append(wiring.region())
        return [plan_offering(o) for o in self.by_region.get(wiring.region(), [])]


MARKET = {
    "us-east-1": [offering("tpo-east", "us-east-1a", "10080.00", MARCH)],
    "us-west-2": [
        offering("tpo-west-dear", "us-west-2a", "12000.00", MARCH - timedelta(days=9)),
        offering("tpo-west-cheap", "us-west-2b", "11000.00", MARCH - timedelta(days=9)),
    ],
}


def test_offerings_of_several_regions_are_ranked_by_earliest_start_then_fee(aws):
    market = RegionalMarket(MARKET)
    query = OfferingSearch(**SEARCH, regions=["us-east-1", "us-west-2", "eu-west-1"])
    found = cases.search_offerings(query, ports=cases.TrainingPlanPorts(sagemaker=market))
    assert sorted(market.asked) == ["eu-west-1", "us-east-1", "us-west-2"]
    assert [(o.offeringId, o.region) for o in found.items] == [
        ("tpo-west-cheap", "us-west-2"),
        ("tpo-west-dear", "us-west-2"),
        ("tpo-east", "us-east-1"),
    ]


def test_a_search_of_the_deployments_region_names_it_and_says_why_when_nothing_is_offered(aws):
    market = RegionalMarket(MARKET)
    one = cases.search_offerings(OfferingSearch(**SEARCH), ports=cases.TrainingPlanPorts(sagemaker=market))
    assert [(o.offeringId, o.region) for o in one.items] == [("tpo-east", "us-east-1")]
    none = cases.search_offerings(
        OfferingSearch(**SEARCH, regions=["eu-west-1"]), ports=cases.TrainingPlanPorts(sagemaker=market)
    )
    assert none.items == [] and "in eu-west-1" in (none.message or "")
