"""EC2's contract: the in-memory fake (tests/fakes/ec2.py) and adapters.aws.ec2 on the sandbox's EC2 answer each
case alike: the region's zones, the zones offering each instance type (one zone when asked, none for a type EC2
does not have), subnets by id (one that does not exist left out) with their VPC and range, and a VPC's subnets."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import pytest
from launchpod.adapters.aws.ec2 import Ec2 as Adapter
from launchpod.domain.errors import NotFound
from launchpod.domain.network import Subnet
from launchpod.usecases.ports import Ec2Offerings

from tests.fakes.ec2 import Ec2
from tests.sandbox.aws.support import wait_until

ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"]
# What the sandbox's EC2 (moto's offerings data) offers of these types in us-east-1.
OFFERED = {"p5.48xlarge": ZONES, "g5.8xlarge": [z for z in ZONES if z != "us-east-1e"]}
Side = tuple[Ec2Offerings, Callable[[str], str]]


@pytest.fixture(params=["fake", "ec2"])
def side(request: pytest.FixtureRequest) -> Side:
    """The port, and how a subnet comes to exist in a zone (its id)."""
    if request.param == "fake":
        fake = Ec2(ZONES, OFFERED)

        def add(zone: str) -> str:
            subnet = f"subnet-{len(fake.subnet_zones):017x}"
            fake.subnet_zones[subnet] = zone
            return subnet

        return fake, add
    ec2, adapter = request.getfixturevalue("client")("ec2"), Adapter()
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]

    def create(zone: str) -> str:
        cidr = f"10.0.{len(ec2.describe_subnets(Filters=[{'Name': 'vpc-id', 'Values': [vpc]}])['Subnets'])}.0/24"
        subnet = str(ec2.create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone=zone)["Subnet"]["SubnetId"])
        # EC2 is eventually consistent: a new subnet's id is not found for a while (sandbox/aws/ec2_consistency.py).
        wait_until(lambda: _settled(adapter, subnet), reason=f"{subnet} was not found")
        return subnet

    return adapter, create


def _settled(adapter: Adapter, subnet: str) -> bool:
    try:
        return bool(adapter.subnets([subnet]))
    except NotFound:  # InvalidSubnetID.NotFound while the new id propagates
        return False


def test_the_regions_zones_each_with_its_zone_id_and_state(side: Side) -> None:
    zones = side[0].zones()
    assert [z["name"] for z in zones] == ZONES
    assert all(z["state"] == "available" and z["zoneId"].startswith("use1-az") for z in zones)


def test_offerings_name_the_zones_of_each_type_and_leave_out_a_type_ec2_does_not_have(side: Side) -> None:
    assert side[0].offerings(["p5.48xlarge", "g5.8xlarge", "nope.large"]) == OFFERED


def test_offerings_in_one_zone_name_only_that_zone(side: Side) -> None:
    assert side[0].offerings(["p5.48xlarge", "g5.8xlarge"], "us-east-1e") == {"p5.48xlarge": ["us-east-1e"]}


def test_subnets_by_id_answer_their_zone_and_leave_out_one_that_does_not_exist(side: Side) -> None:
    ec2, create = side
    first, second = create("us-east-1b"), create("us-east-1c")
    found = ec2.subnets([first, second, "subnet-0000000000000dead"])
    assert sorted((s.id, s.zone) for s in found) == sorted([(first, "us-east-1b"), (second, "us-east-1c")])


def test_subnets_read_with_their_vpc_and_range_and_a_vpc_answers_its_subnets(side: Side) -> None:
    ec2, create = side
    first, second = create("us-east-1b"), create("us-east-1c")
    found = ec2.subnets([first, second])
    assert all(isinstance(s, Subnet) for s in found)
    (vpc,) = {s.vpc_id for s in found}
    ranges = [ipaddress.ip_network(s.cidr) for s in found]
    assert len(set(ranges)) == 2 and all(r.prefixlen == 24 for r in ranges)
    assert sorted(s.id for s in ec2.subnets(vpc_id=vpc)) == sorted([first, second])
