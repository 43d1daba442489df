"""What the account offers: zones and instance types, so clients ask only valid questions."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.catalog import (
    AvailabilityZoneListView,
    AvailabilityZoneView,
    InstanceTypeListView,
    InstanceTypeOfferingView,
)
from launchpod.contracts.common import AvailabilityZoneName
from launchpod.domain.clusters.instance_types import HYPERPOD_INSTANCE_TYPES, to_ec2, to_sagemaker
from launchpod.entrypoints.api.routing import route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


@route(router, "list_availability_zones")
def list_availability_zones() -> AvailabilityZoneListView:
    zones = [AvailabilityZoneView(**z) for z in wiring.ec2().zones()]
    return AvailabilityZoneListView(region=settings().region, items=zones)


@route(router, "list_instance_types")
def list_instance_types(zone: Annotated[AvailabilityZoneName | None, Query()] = None) -> InstanceTypeListView:
    offered = wiring.ec2().offerings([to_ec2(t) for t in HYPERPOD_INSTANCE_TYPES], zone)
    items = [
        InstanceTypeOfferingView(instanceType=to_sagemaker(ec2_type), zones=zones)
        for ec2_type, zones in sorted(offered.items())
    ]
    return InstanceTypeListView(region=settings().region, items=items)
