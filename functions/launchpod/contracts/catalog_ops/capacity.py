"""Capacity: the region's zones, the instance types HyperPod offers in them, and training plans."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.catalog import AvailabilityZoneListView, InstanceTypeListView, RegionListView
from launchpod.contracts.catalog_ops.entry import CatalogEntry, NoInput
from launchpod.contracts.common import AvailabilityZoneName, Contract, HyperPodRegion, Role
from launchpod.contracts.naming import renamed
from launchpod.contracts.training_plans import (
    BuyTrainingPlanRequest,
    ExtendTrainingPlanInput,
    ExtensionOfferingListView,
    ListTrainingPlansInput,
    OfferingListView,
    OfferingSearch,
    TrainingPlanListView,
    TrainingPlanRef,
    TrainingPlanView,
)


class RegionInput(Contract):
    region: HyperPodRegion | None = Field(default=None, description="default: Launchpod's Region")


class InstanceTypesInput(RegionInput):
    availabilityZone: AvailabilityZoneName | None = Field(
        default=None,
        validation_alias=renamed("availabilityZone", "zone"),
        description="only types offered in this zone",
    )


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_regions",
        "GET",
        "/api/catalog/regions",
        "List the Regions a cluster can be created in (those SageMaker HyperPod supports) and Launchpod's own.",
        NoInput,
        RegionListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "list_availability_zones",
        "GET",
        "/api/catalog/availability-zones",
        "List a Region's availability zones with their zone ids (default: Launchpod's Region).",
        RegionInput,
        AvailabilityZoneListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "list_instance_types",
        "GET",
        "/api/catalog/instance-types",
        "List HyperPod instance types and the zones of a Region that offer each.",
        InstanceTypesInput,
        InstanceTypeListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "search_training_plan_offerings",
        "GET",
        "/api/training-plans/offerings",
        "Search training plan offerings (reserved GPU/Trainium capacity for HyperPod): instance type, count,"
        " duration in whole days, earliest start, latest end, in one Region or several. Each offering has its"
        " upfront price, zone, start and end; best match first. Read-only: buying is buy_training_plan.",
        OfferingSearch,
        OfferingListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "buy_training_plan",
        "POST",
        "/api/training-plans",
        "Buy a training plan from an offering of the same search: this spends money (the offering's upfront fee)"
        " and cannot be cancelled. confirmPrice must equal the offering's upfrontFee; dryRun true shows the price"
        " and buys nothing. The same name and offering again answers the plan bought (NOOP).",
        BuyTrainingPlanRequest,
        TrainingPlanView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("capacity",),
    ),
    CatalogEntry(
        "list_training_plans",
        "GET",
        "/api/training-plans",
        "List the account's training plans with state (Pending, Scheduled, Active, Expired, Failed), start, end,"
        " instances total/in use/available and which cluster's instance groups use them.",
        ListTrainingPlansInput,
        TrainingPlanListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "get_training_plan",
        "GET",
        "/api/training-plans/{plan}",
        "Describe one training plan: state, window, price, instances in use and by which cluster and group.",
        TrainingPlanRef,
        TrainingPlanView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "search_training_plan_extensions",
        "GET",
        "/api/training-plans/{plan}/extension-offerings",
        "Search the extension offerings of an Active or Scheduled plan: each adds days after its end, in its"
        " zone, for an upfront fee. Read-only: extending is extend_training_plan.",
        TrainingPlanRef,
        ExtensionOfferingListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "extend_training_plan",
        "POST",
        "/api/training-plans/{plan}/extensions",
        "Extend a training plan by one of its extension offerings: this spends money and cannot be undone."
        " confirmPrice must equal the offering's upfrontFee; dryRun true shows the price and buys nothing. An"
        " offering already used for this plan answers NOOP.",
        ExtendTrainingPlanInput,
        TrainingPlanView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("capacity",),
    ),
)
