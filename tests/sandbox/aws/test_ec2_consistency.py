"""NAT gateway deletion as on AWS: minutes in ``deleting``, its Elastic IP still associated, and what
depends on it refused with EC2's DependencyViolation until it is ``deleted``; Launchpod's teardown
waits for it instead of failing."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from launchpod.adapters.aws.propagation import retry_fresh_ids

from sandbox.aws.ec2 import propagation as ec2_propagation

TAGS = [{"Key": "launchpod:cluster", "Value": "c1"}]


def _network():
    ec2 = boto3.client("ec2", region_name="us-east-1")
    retry_fresh_ids(ec2)  # EC2 answers NotFound for a moment after each create
    spec = lambda kind: [{"ResourceType": kind, "Tags": TAGS}]  # noqa: E731
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16", TagSpecifications=spec("vpc"))["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.9.0.0/24", TagSpecifications=spec("subnet"))["Subnet"][
        "SubnetId"
    ]
    igw = ec2.create_internet_gateway(TagSpecifications=spec("internet-gateway"))["InternetGateway"][
        "InternetGatewayId"
    ]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    allocation = ec2.allocate_address(Domain="vpc", TagSpecifications=spec("elastic-ip"))["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=subnet, AllocationId=allocation, TagSpecifications=spec("natgateway"))[
        "NatGateway"
    ]["NatGatewayId"]
    return ec2, vpc, subnet, igw, allocation, nat


def _code(call, **kwargs) -> str:
    with pytest.raises(ClientError) as raised:
        call(**kwargs)
    return f"{raised.value.response['Error']['Code']}: {raised.value.response['Error']['Message']}"


def test_a_deleting_nat_gateway_blocks_its_address_subnet_and_internet_gateway(time_scale):
    time_scale(1.0)  # 120 simulated seconds of deletion are 2 real minutes: it stays "deleting" here
    ec2_propagation.set_propagation_seconds(0)  # at this scale new ids would stay unseen a real second
    ec2, vpc, subnet, igw, allocation, nat = _network()
    ec2.delete_nat_gateway(NatGatewayId=nat)
    assert ec2.describe_nat_gateways(NatGatewayIds=[nat])["NatGateways"][0]["State"] == "deleting"
    assert _code(ec2.release_address, AllocationId=allocation).startswith("InvalidIPAddress.InUse")
    assert _code(ec2.delete_subnet, SubnetId=subnet) == (
        f"DependencyViolation: The subnet '{subnet}' has dependencies and cannot be deleted."
    )
    assert _code(ec2.detach_internet_gateway, InternetGatewayId=igw, VpcId=vpc).startswith(
        f"DependencyViolation: Network {vpc} has some mapped public address(es)."
    )


def test_once_deleted_its_address_is_disassociated_but_kept(time_scale):
    ec2, vpc, subnet, igw, allocation, nat = _network()
    ec2.delete_nat_gateway(NatGatewayId=nat)
    time_scale(0.000001)  # the same real instant is now long past the deletion
    assert ec2.describe_nat_gateways(NatGatewayIds=[nat])["NatGateways"][0]["State"] == "deleted"
    [address] = ec2.describe_addresses(AllocationIds=[allocation])["Addresses"]
    assert "AssociationId" not in address
    ec2.release_address(AllocationId=allocation)
    ec2.delete_subnet(SubnetId=subnet)
    ec2.detach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)


def test_launchpods_teardown_waits_for_the_nat_gateway_before_the_rest(time_scale):
    from launchpod.adapters.aws.ec2 import Ec2

    time_scale(1.0)
    ec2_propagation.set_propagation_seconds(0)  # at this scale new ids would stay unseen a real second
    _network()
    tags = {"launchpod:cluster": "c1"}
    adapter = Ec2()
    started, pending = adapter.delete_tagged_nat_gateways(tags)
    assert started == pending and len(pending) == 1
    assert adapter.delete_tagged_nat_gateways(tags) == ([], pending)  # still deleting: not deleted twice
    time_scale(0.000001)
    assert adapter.delete_tagged_nat_gateways(tags) == ([], [])
    gone = adapter.delete_tagged_network(tags)
    assert any(g.startswith("vpc-") for g in gone) and any(g.startswith("subnet-") for g in gone)


def test_nat_gateways_are_filtered_by_their_tags_as_ec2_documents():
    ec2, _, _, _, _, nat = _network()
    other = ec2.create_nat_gateway(
        SubnetId=ec2.describe_nat_gateways(NatGatewayIds=[nat])["NatGateways"][0]["SubnetId"],
        AllocationId=ec2.allocate_address(Domain="vpc")["AllocationId"],
        TagSpecifications=[{"ResourceType": "natgateway", "Tags": [{"Key": "launchpod:cluster", "Value": "c2"}]}],
    )["NatGateway"]["NatGatewayId"]
    tagged = ec2.describe_nat_gateways(Filter=[{"Name": "tag:launchpod:cluster", "Values": ["c1"]}])["NatGateways"]
    assert [n["NatGatewayId"] for n in tagged] == [nat]
    keyed = ec2.describe_nat_gateways(Filter=[{"Name": "tag-key", "Values": ["launchpod:cluster"]}])["NatGateways"]
    assert {n["NatGatewayId"] for n in keyed} == {nat, other}


def test_a_network_interface_left_in_a_subnet_blocks_its_deletion(time_scale):
    time_scale(1.0)
    ec2_propagation.set_propagation_seconds(0)
    ec2 = boto3.client("ec2", region_name="us-east-1")
    retry_fresh_ids(ec2)
    vpc = ec2.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/24")["Subnet"]["SubnetId"]
    eni = ec2.create_network_interface(SubnetId=subnet, Description="ELB net/k8s-default-chat-0123456789/abc")
    assert _code(ec2.delete_subnet, SubnetId=subnet) == (
        f"DependencyViolation: The subnet '{subnet}' has dependencies and cannot be deleted."
    )
    ec2.delete_network_interface(NetworkInterfaceId=eni["NetworkInterface"]["NetworkInterfaceId"])
    ec2.delete_subnet(SubnetId=subnet)
    ec2.delete_vpc(VpcId=vpc)
