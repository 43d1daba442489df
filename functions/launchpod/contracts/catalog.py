"""What the account offers: availability zones and the instance types offered in each."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.common import Contract


class AvailabilityZoneView(Contract):
    name: str = Field(examples=["us-east-1a"])
    zoneId: str = Field(examples=["use1-az6"], description="Stable across accounts; capacity is per zone id.")
    state: str


class AvailabilityZoneListView(Contract):
    region: str
    items: list[AvailabilityZoneView]


class InstanceTypeOfferingView(Contract):
    instanceType: str = Field(examples=["ml.p5.48xlarge"])
    zones: list[str]


class InstanceTypeListView(Contract):
    region: str
    items: list[InstanceTypeOfferingView]
