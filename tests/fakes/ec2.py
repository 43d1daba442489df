"""EC2 in memory: the Subnets / Ec2Offerings ports (adapters.aws.ec2)."""

from __future__ import annotations

from launchpod.domain.network import Subnet

VPC = "vpc-0fa1e000000000001"


class Ec2:
    """EC2: the region's zones, the zones offering each (EC2-named) instance type, and subnets by id (their zone;
    each a /24 of one VPC, ``VPC``); ``asked`` is the subnet ids of each DescribeSubnets, ``offerings_asked`` the
    (types, zone) of each offerings read."""

    def __init__(
        self,
        zones: list[str] | None = None,
        offered: dict[str, list[str]] | None = None,
        subnets: dict[str, str] | None = None,
    ) -> None:
        self.zone_names, self.offered, self.subnet_zones = zones or [], offered or {}, subnets or {}
        self.offerings_asked: list[tuple[list[str], str | None]] = []
        self.asked: list[list[str]] = []

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[Subnet]:
        """DescribeSubnets filtered by subnet id and VPC id, as the adapter asks it: an unknown id is left out."""
        self.asked.append(list(subnet_ids or []))
        zones = enumerate(self.subnet_zones.items())
        everything = {s: Subnet(s, zone, VPC, f"10.0.{i}.0/24") for i, (s, zone) in zones}
        ids = everything if subnet_ids is None else [s for s in subnet_ids if s in everything]
        return [everything[s] for s in ids if vpc_id is None or everything[s].vpc_id == vpc_id]

    def zones(self) -> list[dict[str, str]]:
        return [{"name": z, "zoneId": f"use1-az{i}", "state": "available"} for i, z in enumerate(self.zone_names, 1)]

    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]:
        self.offerings_asked.append((list(instance_types), zone))
        return {
            t: [z for z in zs if zone is None or z == zone]
            for t, zs in self.offered.items()
            if t in instance_types and (zone is None or zone in zs)
        }
