"""EC2 in memory: the Subnets / Ec2Offerings ports (adapters.aws.ec2)."""

from __future__ import annotations

from typing import Any


class Ec2:
    """EC2: the region's zones, the zones offering each (EC2-named) instance type, and subnets by id; ``asked`` is
    the subnet ids of each DescribeSubnets, ``offerings_asked`` the (types, zone) of each offerings read."""

    def __init__(
        self,
        zones: list[str] | None = None,
        offered: dict[str, list[str]] | None = None,
        subnets: dict[str, str] | None = None,
    ) -> None:
        self.zone_names, self.offered, self.subnet_zones = zones or [], offered or {}, subnets or {}
        self.offerings_asked: list[tuple[list[str], str | None]] = []
        self.asked: list[list[str]] = []

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[dict[str, Any]]:
        self.asked.append(list(subnet_ids or []))
        return [
            {"SubnetId": s, "AvailabilityZone": self.subnet_zones[s]}
            for s in subnet_ids or []
            if s in self.subnet_zones
        ]

    def zones(self) -> list[dict[str, str]]:
        return [{"name": z, "zoneId": f"use1-az{i}", "state": "available"} for i, z in enumerate(self.zone_names, 1)]

    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]:
        self.offerings_asked.append((list(instance_types), zone))
        return {
            t: [z for z in zs if zone is None or z == zone]
            for t, zs in self.offered.items()
            if t in instance_types and (zone is None or zone in zs)
        }
