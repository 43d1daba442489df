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
    assert "us-east-1a" in [z["name"] for z in zones] and all(z["state"] == "available" for z in zones)
    offered = ec2.offerings(["p4d.24xlarge"], "us-east-1a")
    assert set(offered) <= {"p4d.24xlarge"}


def test_offerings_of_more_types_than_one_call_takes_are_each_found_in_every_zone_offering_them(aws):
    ec2 = Ec2()
    truth: dict[str, list[str]] = {}
    for page in ec2.ec2.get_paginator("describe_instance_type_offerings").paginate(LocationType="availability-zone"):
        for o in page["InstanceTypeOfferings"]:
            truth.setdefault(o["InstanceType"], []).append(o["Location"])
    types = [*sorted(truth)[:250], "nope.large"]
    assert len(types) > 200  # three calls of 100
    assert ec2.offerings(types) == {t: sorted(truth[t]) for t in types if t in truth}


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


def _before_first(ec2: Ec2, operation: str, other_run) -> None:
    """Run `other_run` once, just before this client's first call to `operation` goes out."""

    def hook(**_):
        ec2.ec2.meta.events.unregister(f"before-call.ec2.{operation}", hook)
        other_run()

    ec2.ec2.meta.events.register(f"before-call.ec2.{operation}", hook)


def test_a_nat_gateway_made_meanwhile_by_another_run_of_the_phase_is_used(aws):
    """Both runs looked and found no gateway; the other one creates it with the free address first, so this
    run's create meets Resource.AlreadyAssociated and takes the gateway in the subnet."""
    ec2 = Ec2()
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    public = ec2.ensure_subnet(vpc, "10.192.32.0/24", "us-east-1a", TAGS)
    ec2.ensure_route_table(vpc, TAGS, [public], gateway_id=ec2.ensure_internet_gateway(vpc, TAGS))
    spec = [{"ResourceType": "elastic-ip", "Tags": [{"Key": k, "Value": v} for k, v in TAGS.items()]}]
    address = ec2.ec2.allocate_address(Domain="vpc", TagSpecifications=spec)["AllocationId"]
    made = []
    _before_first(
        ec2,
        "CreateNatGateway",
        lambda: made.append(
            ec2.ec2.create_nat_gateway(SubnetId=public, AllocationId=address)["NatGateway"]["NatGatewayId"]
        ),
    )
    assert ec2.ensure_nat_gateway(public, TAGS) == made[0]
    assert len(ec2.ec2.describe_nat_gateways()["NatGateways"]) == 1


def test_an_address_another_gateway_holds_is_not_offered_to_a_new_one(aws):
    ec2 = Ec2()
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    first = ec2.ensure_subnet(vpc, "10.192.32.0/24", "us-east-1a", TAGS)
    second = ec2.ensure_subnet(vpc, "10.192.33.0/24", "us-east-1a", TAGS)
    ec2.ensure_route_table(vpc, TAGS, [first, second], gateway_id=ec2.ensure_internet_gateway(vpc, TAGS))
    ec2.ensure_nat_gateway(first, TAGS)
    ec2.ensure_nat_gateway(second, TAGS)
    addresses = {
        a["AllocationId"] for n in ec2.ec2.describe_nat_gateways()["NatGateways"] for a in n["NatGatewayAddresses"]
    }
    assert len(addresses) == 2


def test_an_internet_gateway_attached_meanwhile_by_another_run_of_the_phase_is_used(aws):
    ec2 = Ec2()
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    spec = [{"ResourceType": "internet-gateway", "Tags": [{"Key": k, "Value": v} for k, v in TAGS.items()]}]
    theirs = ec2.ec2.create_internet_gateway(TagSpecifications=spec)["InternetGateway"]["InternetGatewayId"]
    # Both runs found it detached; the other attaches it first.
    _before_first(
        ec2, "AttachInternetGateway", lambda: ec2.ec2.attach_internet_gateway(InternetGatewayId=theirs, VpcId=vpc)
    )
    assert ec2.ensure_internet_gateway(vpc, TAGS) == theirs


def test_the_teardown_deletes_every_tagged_resource_and_names_each_and_leaves_others(aws):
    """No NAT gateway here: its deletion takes minutes (delete_tagged_nat_gateways, before this teardown)."""
    ec2 = Ec2()
    vpc = ec2.ensure_vpc("10.192.0.0/16", TAGS)
    private = ec2.ensure_subnet(vpc, "10.192.0.0/20", "us-east-1a", TAGS)
    public = ec2.ensure_subnet(vpc, "10.192.32.0/24", "us-east-1a", TAGS)
    igw = ec2.ensure_internet_gateway(vpc, TAGS)
    table = ec2.ensure_route_table(vpc, {**TAGS, "Name": "public"}, [public], gateway_id=igw)
    group = ec2.ensure_efa_security_group(vpc, "launchpod-c1-efa", TAGS)
    spec = [{"ResourceType": "elastic-ip", "Tags": [{"Key": k, "Value": v} for k, v in TAGS.items()]}]
    address = ec2.ec2.allocate_address(Domain="vpc", TagSpecifications=spec)["AllocationId"]
    theirs = ec2.ec2.create_vpc(CidrBlock="10.50.0.0/16")["Vpc"]["VpcId"]
    gone = ec2.delete_tagged_network(TAGS)
    assert set(gone) == {address, group, table, private, public, igw, vpc} and len(gone) == 7
    assert gone[0] == address and gone[-1] == vpc  # the VPC last: it goes only once nothing is left in it
    assert [v["VpcId"] for v in ec2.ec2.describe_vpcs()["Vpcs"] if not v.get("IsDefault")] == [theirs]
    assert ec2.ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Subnets"] == []
