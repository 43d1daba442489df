"""What the account offers (zones and HyperPod instance types), read from EC2 so clients ask only valid
questions."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.catalog import (
    AvailabilityZoneListView,
    AvailabilityZoneView,
    InstanceTypeListView,
    InstanceTypeOfferingView,
    RegionListView,
)
from launchpod.contracts.common import HYPERPOD_REGIONS
from launchpod.domain import mig
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import Ec2Offerings, InstanceFacts


@dataclass(frozen=True)
class CatalogPorts:
    region: str
    ec2: Ec2Offerings
    instances: InstanceFacts


def real() -> CatalogPorts:
    """The deployed adapters (runtime.wiring)."""
    return CatalogPorts(region=wiring.region(), ec2=wiring.ec2(), instances=wiring.instance_facts())


def regions() -> RegionListView:
    """The Regions a cluster may be created in, and the deployment's (the default)."""
    return RegionListView(default=settings().region, items=list(HYPERPOD_REGIONS))


def availability_zones(*, ports: CatalogPorts) -> AvailabilityZoneListView:
    """The region's zones as EC2 lists them."""
    zones = [AvailabilityZoneView(**z) for z in ports.ec2.zones()]
    return AvailabilityZoneListView(region=ports.region, items=zones)


def _offering(acc: Accelerators, zones: list[str]) -> InstanceTypeOfferingView:
    maker = f"{acc.gpu_maker} " if acc.gpu_maker else ""
    return InstanceTypeOfferingView(
        instanceType=acc.instance_type,
        availabilityZones=zones,
        vCpu=acc.vcpus,
        memoryInGiB=round(acc.memory_mib / 1024, 1),
        gpus=acc.gpus,
        gpuModel=f"{maker}{acc.gpu_model}" if acc.gpu_model else None,
        gpuMemoryGiB=round(acc.gpu_memory_mib / 1024, 1),
        neuronDevices=acc.neuron,
        neuronModel=acc.neuron_model,
        efaInterfaces=acc.efa,
        localNvme=acc.nvme,
        migProfiles=mig.profiles(acc.instance_type),
        migMixes=mig.mixes(acc.instance_type),
    )


def instance_types(zone: str | None, *, ports: CatalogPorts) -> InstanceTypeListView:
    """Every instance type HyperPod offers that EC2 offers in the region (or in ``zone``), with the zones
    offering each and what one node carries."""
    facts = ports.instances.all()
    offered = ports.ec2.offerings([to_ec2(t) for t in sorted(facts)], zone)
    items = [_offering(facts[to_sagemaker(ec2_type)], zones) for ec2_type, zones in sorted(offered.items())]
    return InstanceTypeListView(region=ports.region, items=items)
