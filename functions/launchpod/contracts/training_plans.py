"""Training plans: searching offerings, buying one against a named price, listing and describing plans with
what uses them, and extending a plan. Field limits are SageMaker's (SearchTrainingPlanOfferings,
CreateTrainingPlan, ExtendTrainingPlan in the botocore service model Launchpod pins)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from launchpod.contracts.common import HYPERPOD_REGIONS, Contract, HyperPodRegion, refused

# ReservedCapacityInstanceType: the only types a training plan reserves.
ReservedInstanceType = Literal[
    "ml.p4d.24xlarge",
    "ml.p4de.24xlarge",
    "ml.p5.48xlarge",
    "ml.p5.4xlarge",
    "ml.p5e.48xlarge",
    "ml.p5en.48xlarge",
    "ml.p6-b200.48xlarge",
    "ml.p6-b300.48xlarge",
    "ml.p6e-gb200.36xlarge",
    "ml.trn1.32xlarge",
    "ml.trn2.48xlarge",
]
TargetResource = Literal["hyperpod-cluster", "training-job", "endpoint", "studio-apps"]
PlanStatus = Literal["Pending", "Active", "Scheduled", "Expired", "Failed"]

# CreateTrainingPlan's TrainingPlanName: 1-64, [a-zA-Z0-9](-*[a-zA-Z0-9]){0,63}.
TrainingPlanName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,63}$",
        description="1-64 letters, digits and hyphens; starts and ends with a letter or digit.",
        examples=["p5-week-1"],
    ),
]
OfferingId = Annotated[str, Field(min_length=1, max_length=256, pattern=r"^[a-z0-9\-]+$")]
# The fee as SageMaker writes it (a decimal string such as "5040.00"), and how a caller confirms it.
Price = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^\d+(\.\d+)?$", examples=["5040.00"])]


def _iso_only(value: object) -> object:
    """pydantic also reads a number as seconds since the epoch; the API documents ISO 8601 only."""
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        raise ValueError("give an ISO 8601 date-time such as 2026-01-31T09:00:00Z")
    return value


IsoDateTime = Annotated[datetime, BeforeValidator(_iso_only)]


class OfferingQuery(Contract):
    """What to search for. Per the SageMaker guide's "Search training plan offerings": counts of 1, 2, 4, 8,
    16, 32 or 64 and whole days of 1 to 182 are what AWS offers."""

    instanceType: ReservedInstanceType
    instanceCount: int = Field(ge=1, le=256, description="instances to reserve")
    durationHours: int = Field(
        default=24, ge=24, le=4368, multiple_of=24, description="whole days in hours (24 to 4368)"
    )
    startTimeAfter: IsoDateTime | None = Field(default=None, description="earliest start (ISO 8601)")
    endTimeBefore: IsoDateTime | None = Field(default=None, description="latest end (ISO 8601)")
    target: TargetResource = Field(default="hyperpod-cluster", description="what the plan serves; only that kind")

    @model_validator(mode="after")
    def _whole_days(self) -> OfferingQuery:
        if self.startTimeAfter and self.endTimeBefore and self.endTimeBefore <= self.startTimeAfter:
            raise refused("search_window", "endTimeBefore must be after startTimeAfter")
        return self


class OfferingSearch(OfferingQuery):
    """A search of one Region (Launchpod's by default) or of several at once."""

    regions: list[HyperPodRegion] | None = Field(
        default=None,
        max_length=len(HYPERPOD_REGIONS),
        description="Regions to search, ranked: earliest start, then lowest fee",
        json_schema_extra={"uniqueItems": True},
    )


class OfferingView(Contract):
    offeringId: str
    region: str | None = Field(default=None, description="the Region offering it; buy it there")
    upfrontFee: str
    currencyCode: str
    instanceType: str
    instanceCount: int
    availabilityZone: str | None = None
    startTime: datetime | None = None
    endTime: datetime | None = None
    durationHours: int
    targetResources: list[str]


class OfferingListView(Contract):
    items: list[OfferingView]
    message: str | None = Field(default=None, description="why the list is empty, when it is")


class BuyTrainingPlanRequest(OfferingQuery):
    """Buy one offering of a search. The search is repeated to read the offering's price; confirmPrice must
    equal it. Buying again with the same name and offering answers the plan already bought."""

    name: TrainingPlanName
    region: HyperPodRegion | None = Field(default=None, description="the offering's region")
    offeringId: OfferingId
    confirmPrice: Price = Field(description="the offering's upfrontFee, typed back to confirm the purchase")


class PlanUsageView(Contract):
    cluster: str = Field(description="the HyperPod cluster")
    instanceGroup: str
    targetCount: int
    currentCount: int


class TrainingPlanView(Contract):
    name: str
    arn: str
    status: PlanStatus | str
    statusMessage: str | None = None
    instanceType: str | None = None
    availabilityZone: str | None = None
    startTime: datetime | None = None
    endTime: datetime | None = None
    durationHours: int | None = None
    upfrontFee: str | None = None
    currencyCode: str | None = None
    targetResources: list[str] = []
    totalInstanceCount: int = 0
    inUseInstanceCount: int = 0
    availableInstanceCount: int = 0
    usage: list[PlanUsageView] = Field(default=[], description="the instance groups on the plan, by cluster")
    message: str | None = None


class TrainingPlanListView(Contract):
    items: list[TrainingPlanView]


class TrainingPlanRef(Contract):
    plan: TrainingPlanName


class ListTrainingPlansInput(Contract):
    status: PlanStatus | None = Field(default=None, description="only plans in this state")


class ExtensionOfferingView(Contract):
    offeringId: str
    availabilityZone: str | None = None
    startDate: datetime | None = None
    endDate: datetime | None = None
    durationHours: int
    upfrontFee: str
    currencyCode: str


class ExtensionOfferingListView(Contract):
    plan: str
    items: list[ExtensionOfferingView]


class ExtendTrainingPlanRequest(Contract):
    """Extend a plan by one of its extension offerings; confirmPrice must equal the offering's fee."""

    offeringId: OfferingId
    confirmPrice: Price = Field(description="the extension offering's upfrontFee, typed back to confirm")


class ExtendTrainingPlanInput(ExtendTrainingPlanRequest):
    plan: TrainingPlanName
