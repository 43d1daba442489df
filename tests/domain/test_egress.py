"""The egress rule HyperPod's compute subnet must meet before CreateCluster."""

from __future__ import annotations

from launchpod.domain import egress

MAIN = {
    "RouteTableId": "rtb-main",
    "Associations": [{"Main": True}],
    "Routes": [{"DestinationCidrBlock": "10.0.0.0/16", "GatewayId": "local"}],
}
PUBLIC = {
    "RouteTableId": "rtb-public",
    "Associations": [{"SubnetId": "subnet-public"}],
    "Routes": [{"DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "igw-1"}],
}
PRIVATE = {
    "RouteTableId": "rtb-private",
    "Associations": [{"SubnetId": "subnet-private"}],
    "Routes": [{"DestinationCidrBlock": "0.0.0.0/0", "NatGatewayId": "nat-1", "State": "active"}],
}


def test_only_a_nat_style_default_route_counts_as_a_way_out():
    tables = [MAIN, PUBLIC, PRIVATE]
    assert egress.egress_table(tables, ["subnet-public", "subnet-private"]) is PRIVATE
    # an internet gateway route is no way out for instances without public IPs
    assert egress.egress_table(tables, ["subnet-public"]) is None
    # unassociated subnets use the main table
    assert egress.table_of(tables, "subnet-other") is MAIN and not egress.routes_out(MAIN)
    blackhole = {**PRIVATE, "Routes": [{**PRIVATE["Routes"][0], "State": "blackhole"}]}
    assert not egress.routes_out(blackhole)


def test_endpoints_missing_are_named_in_order():
    endpoints = [
        {"ServiceName": "com.amazonaws.us-east-1.s3", "State": "available"},
        {"ServiceName": "com.amazonaws.us-east-1.ecr.dkr", "State": "available"},
        {"ServiceName": "com.amazonaws.us-east-1.sts", "State": "pending"},
    ]
    assert egress.missing_endpoints(endpoints, "us-east-1") == ["ecr.api", "sts", "ec2"]
