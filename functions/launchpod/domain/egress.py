"""Whether a subnet has a way out: the rule HyperPod's nodes need before CreateCluster.

A node in a private subnet bootstraps by pulling images and calling AWS APIs, so its route table (the
subnet's explicit association, else the VPC's main table) must send ``0.0.0.0/0`` to a NAT gateway
(or a transit gateway or a NAT instance), or the VPC must have endpoints for what nodes call:
ECR (api, dkr), S3, STS and EC2 (https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html).
An internet gateway route does not count: HyperPod's instances get no public IP.
Inputs are EC2's DescribeRouteTables / DescribeVpcEndpoints shapes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ENDPOINT_SERVICES = ("ecr.api", "ecr.dkr", "s3", "sts", "ec2")
_TARGETS = ("NatGatewayId", "TransitGatewayId", "NetworkInterfaceId", "InstanceId")


def table_of(tables: Iterable[dict[str, Any]], subnet_id: str) -> dict[str, Any] | None:
    """The route table a subnet uses: its explicit association, else the VPC's main table."""
    tables = list(tables)
    for table in tables:
        if any(a.get("SubnetId") == subnet_id for a in table.get("Associations", [])):
            return table
    return next((t for t in tables if any(a.get("Main") for a in t.get("Associations", []))), None)


def routes_out(table: dict[str, Any] | None) -> bool:
    """Whether the table sends 0.0.0.0/0 to a NAT gateway, transit gateway or NAT instance."""
    return table is not None and any(
        route.get("DestinationCidrBlock") == "0.0.0.0/0"
        and route.get("State", "active") == "active"
        and any(route.get(target) for target in _TARGETS)
        for route in table.get("Routes", [])
    )


def egress_table(tables: Iterable[dict[str, Any]], subnet_ids: Iterable[str]) -> dict[str, Any] | None:
    """The first of these subnets' route tables that routes out, or None."""
    tables = list(tables)
    for subnet_id in subnet_ids:
        table = table_of(tables, subnet_id)
        if routes_out(table):
            return table
    return None


def missing_endpoints(endpoints: Iterable[dict[str, Any]], region: str) -> list[str]:
    """The services nodes call that have no available endpoint in the VPC."""
    present = {
        str(e.get("ServiceName", "")).rsplit(f"{region}.", 1)[-1]
        for e in endpoints
        if str(e.get("State", "available")).lower() == "available"
    }
    return [s for s in ENDPOINT_SERVICES if s not in present]
