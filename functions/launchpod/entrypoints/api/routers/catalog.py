"""What the account offers: zones and instance types, in the deployment's Region or the one asked for, so
clients ask only valid questions."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.catalog import AvailabilityZoneListView, InstanceTypeListView, RegionListView
from launchpod.contracts.common import AvailabilityZoneName, HyperPodRegion
from launchpod.entrypoints.api.routing import older_spelling, one_spelling, route
from launchpod.usecases import catalog

router = APIGatewayRouter()


@route(router, "list_regions")
def list_regions() -> RegionListView:
    return catalog.regions()


@route(router, "list_availability_zones")
def list_availability_zones(region: Annotated[HyperPodRegion | None, Query()] = None) -> AvailabilityZoneListView:
    return catalog.availability_zones(ports=catalog.real())  # in ``region`` (routing.in_region)


@route(router, "list_instance_types")
def list_instance_types(
    availabilityZone: Annotated[AvailabilityZoneName | None, Query()] = None,
    zone: Annotated[AvailabilityZoneName | None, older_spelling("availabilityZone")] = None,
    region: Annotated[HyperPodRegion | None, Query()] = None,
) -> InstanceTypeListView:
    chosen = one_spelling("availabilityZone", availabilityZone, "zone", zone)
    return catalog.instance_types(chosen, ports=catalog.real())  # in ``region`` (routing.in_region)
