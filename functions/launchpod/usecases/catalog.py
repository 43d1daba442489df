"""What the account offers (zones and HyperPod instance types), read from EC2 so clients ask only valid
questions."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.catalog import (
    AvailabilityZoneListView,
    AvailabilityZoneView,
    InstanceTypeListView,
    InstanceTypeOfferingView,
)
from launchpod.domain.clusters.instance_types import HYPERPOD_INSTANCE_TYPES, to_ec2, to_sagemaker
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import Ec2Offerings


@dataclass(frozen=True)
class CatalogPorts:
    region: str
    ec2: Ec2Offerings


def real() -> CatalogPorts:
    """The deployed adapters (runtime.wiring)."""
    return CatalogPorts(region=settings().region, ec2=wiring.ec2())


def availability_zones(*, ports: CatalogPorts) -> AvailabilityZoneListView:
    """The region's zones as EC2 lists them."""
    zones = [AvailabilityZoneView(**z) for z in ports.ec2.zones()]
    return AvailabilityZoneListView(region=ports.region, items=zones)


def instance_types(zone: str | None, *, ports: CatalogPorts) -> InstanceTypeListView:
    """HyperPod's instance types EC2 offers in the region (or in ``zone``), with the zones offering each."""
    offered = ports.ec2.offerings([to_ec2(t) for t in HYPERPOD_INSTANCE_TYPES], zone)
    items = [
        InstanceTypeOfferingView(instanceType=to_sagemaker(ec2_type), zones=zones)
        for ec2_type, zones in sorted(offered.items())
    ]
    return InstanceTypeListView(region=ports.region, items=items)
