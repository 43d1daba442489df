"""What the account offers: availability zones and the instance types offered in each."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.common import Contract


class RegionListView(Contract):
    """Where a cluster can be created: the Regions SageMaker HyperPod supports, and Launchpod's own."""

    default: str = Field(description="Launchpod's Region: a cluster created without one lives here")
    items: list[str] = Field(description="the Regions a cluster may be created in (region on create)")


class AvailabilityZoneView(Contract):
    name: str = Field(examples=["us-east-1a"])
    zoneId: str = Field(examples=["use1-az6"], description="Stable across accounts; capacity is per zone id.")
    state: str


class AvailabilityZoneListView(Contract):
    region: str
    items: list[AvailabilityZoneView]


class InstanceTypeOfferingView(Contract):
    """A HyperPod instance type the region offers, with what one node carries (EC2's DescribeInstanceTypes)."""

    instanceType: str = Field(examples=["ml.p5.48xlarge"])
    availabilityZones: list[str]
    vCpu: int = Field(0, examples=[192])
    memoryInGiB: float = Field(0, examples=[2048])
    gpus: int = Field(0, examples=[8])
    gpuModel: str | None = Field(None, examples=["NVIDIA H100"])
    gpuMemoryGiB: float = Field(0, description="Per GPU.", examples=[80])
    neuronDevices: int = Field(0, examples=[16])
    neuronModel: str | None = Field(None, examples=["Trainium2"])
    efaInterfaces: int = Field(0, description="EC2's MaximumEfaInterfaces: what a job's pod asks for.", examples=[32])
    localNvme: bool = Field(False, description="Local NVMe instance store (HyperPod mounts it at /opt/dlami/nvme).")
    migProfiles: dict[str, int] = Field(
        default_factory=dict,
        description="GPU partitions (MIG) HyperPod offers on the type: profile -> instances on one GPU (a group's"
        " mig single layout takes one)",
        examples=[{"mig-1g.10gb": 7, "mig-3g.40gb": 2}],
    )
    migMixes: list[dict[str, int]] = Field(
        default_factory=list,
        description="the mixed layouts HyperPod ships for the type's GPU (a group's mig mixed perGpu takes one)",
    )


class InstanceTypeListView(Contract):
    region: str
    items: list[InstanceTypeOfferingView]
