"""The network adapter looks before it creates: a re-run finds its own VPC, subnets, gateways."""

from __future__ import annotations

from launchpod.adapters.aws.ec2 import Ec2

TAGS = {"launchpod:cluster": "c1", "launchpod:managed-by": "launchpod"}


def _build(ec2: Ec2) -> tuple[str, str, str, str]:
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    private = ec2.ensure_subnet(vpc, "10.192.0.0/20", "us-east-1a", TAGS)
    public = ec2.ensure_subnet(vpc, "10.192.32.0/24", "us-east-1a", TAGS)
    igw = ec2.ensure_internet_gateway(vpc, TAGS)
    ec2.ensure_route_table(vpc, {**TAGS, "Name": "public"}, [public], gateway_id=igw)
    nat = ec2.ensure_nat_gateway(public, TAGS)
    ec2.ensure_route_table(vpc, {**TAGS, "Name": "private"}, [private], nat_gateway_id=nat)
    return vpc, private, public, nat


def test_running_the_network_twice_creates_it_once(aws):
    ec2 = Ec2()
    first = _build(ec2)
    second = _build(ec2)
    assert first == second
    assert len([v for v in ec2.ec2.describe_vpcs()["Vpcs"] if not v.get("IsDefault")]) == 1
    assert len(ec2.subnets(vpc_id=first[0])) == 2
    tables = ec2.ec2.describe_route_tables(
        Filters=[
            {"Name": "vpc-id", "Values": [first[0]]},
            {"Name": "tag:launchpod:cluster", "Values": ["c1"]},
        ]
    )
    routes = sorted(
        r.get("GatewayId") or r.get("NatGatewayId")
        for t in tables["RouteTables"]
        for r in t["Routes"]
        if r.get("DestinationCidrBlock") == "0.0.0.0/0"
    )
    assert len(routes) == 2 and first[3] in routes


def test_zones_and_offerings_come_from_ec2(aws):
    ec2 = Ec2()
    zones = ec2.zones()
    assert {"name": "us-east-1a", "zoneId": zones[0]["zoneId"], "state": "available"} in zones or zones
    offered = ec2.offerings(["p4d.24xlarge"], "us-east-1a")
    assert set(offered) <= {"p4d.24xlarge"}


def test_a_security_group_made_meanwhile_by_another_run_of_the_phase_is_used(aws, monkeypatch):
    """A cancelled execution's invocation goes on after StopExecution, so its retry can look for the group
    before that one creates it: the retry's create then meets InvalidGroup.Duplicate and takes the group."""
    ec2 = Ec2()
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    made = ec2.ec2.create_security_group(GroupName="g", Description="d", VpcId=vpc)["GroupId"]
    real, looked = ec2.security_group, []

    def late(vpc_id: str, name: str):  # the first look comes before the other run's create
        looked.append(name)
        return None if len(looked) == 1 else real(vpc_id, name)

    monkeypatch.setattr(ec2, "security_group", late)
    assert ec2.ensure_efa_security_group(vpc, "g", TAGS) == made
