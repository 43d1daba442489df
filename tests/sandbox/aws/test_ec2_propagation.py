"""EC2's eventual consistency: a new id is NotFound for a moment; Launchpod's EC2 calls ride it out.

The sandbox runs at 0.01 real seconds per simulated second here: 30 simulated seconds of propagation
are 0.3 real seconds, well inside the client's retry budget (~6 s) and well beyond a call's duration.
"""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from launchpod.adapters.aws.ec2 import Ec2
from launchpod.adapters.aws.propagation import retry_fresh_ids

from sandbox.aws.ec2 import propagation as ec2_propagation

TAGS = {"launchpod:cluster": "c1"}


def _raw():
    return boto3.client("ec2", region_name="us-east-1")


def test_an_id_just_created_is_not_found_until_it_propagates():
    ec2_propagation.set_propagation_seconds(3600)
    ec2 = _raw()
    vpc = ec2.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    with pytest.raises(ClientError) as raised:
        ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/24")
    assert raised.value.response["Error"]["Code"] == "InvalidVpcID.NotFound"
    with pytest.raises(ClientError) as raised:
        ec2.describe_vpcs(VpcIds=[vpc])
    assert raised.value.response["Error"]["Code"] == "InvalidVpcID.NotFound"

    ec2_propagation.set_propagation_seconds(0)
    assert ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/24")["Subnet"]["VpcId"] == vpc


def test_a_delete_is_not_refused_while_the_id_propagates():
    ec2_propagation.set_propagation_seconds(3600)
    ec2 = _raw()
    group = ec2.create_security_group(GroupName="g", Description="d")["GroupId"]
    ec2.delete_security_group(GroupId=group)
    ec2_propagation.set_propagation_seconds(0)
    assert group not in {g["GroupId"] for g in ec2.describe_security_groups()["SecurityGroups"]}


def test_a_client_retries_its_own_new_ids_but_not_an_id_it_never_created():
    ec2_propagation.set_propagation_seconds(30)
    ec2 = _raw()
    retry_fresh_ids(ec2)
    vpc = ec2.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    answer = ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/24")
    assert answer["Subnet"]["VpcId"] == vpc
    assert answer["ResponseMetadata"]["RetryAttempts"] >= 1

    with pytest.raises(ClientError) as raised:
        ec2.create_subnet(VpcId="vpc-0123456789abcdef0", CidrBlock="10.8.1.0/24")
    assert raised.value.response["Error"]["Code"] == "InvalidVpcID.NotFound"
    assert raised.value.response["ResponseMetadata"]["RetryAttempts"] == 0  # a typo fails at once


def test_launchpods_network_is_built_while_each_new_id_propagates():
    ec2_propagation.set_propagation_seconds(30)
    adapter = Ec2()
    vpc = adapter.ensure_vpc("10.20.0.0/16", TAGS)
    public = adapter.ensure_subnet(vpc, "10.20.0.0/24", "us-east-1a", TAGS)
    private = adapter.ensure_subnet(vpc, "10.20.16.0/20", "us-east-1a", TAGS)
    igw = adapter.ensure_internet_gateway(vpc, TAGS)
    nat = adapter.ensure_nat_gateway(public, TAGS)
    adapter.ensure_route_table(vpc, {**TAGS, "tier": "private"}, [private], nat_gateway_id=nat)
    group = adapter.ensure_efa_security_group(vpc, "shared", TAGS)

    ec2_propagation.set_propagation_seconds(0)
    ec2 = _raw()
    assert ec2.describe_vpc_attribute(VpcId=vpc, Attribute="enableDnsHostnames")["EnableDnsHostnames"]["Value"]
    assert (
        ec2.describe_internet_gateways(InternetGatewayIds=[igw])["InternetGateways"][0]["Attachments"][0]["VpcId"]
        == vpc
    )
    [table] = ec2.describe_route_tables(Filters=[{"Name": "tag:tier", "Values": ["private"]}])["RouteTables"]
    assert {a.get("SubnetId") for a in table["Associations"]} == {private}
    assert any(r.get("NatGatewayId") == nat for r in table["Routes"])
    [sg] = ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"]
    assert any(p["IpProtocol"] == "-1" for p in sg["IpPermissions"])


def test_a_phase_that_stopped_after_a_create_finishes_the_resource_on_its_next_run():
    ec2 = _raw()
    spec = [{"ResourceType": "vpc", "Tags": [{"Key": k, "Value": v} for k, v in TAGS.items()]}]
    vpc = ec2.create_vpc(CidrBlock="10.30.0.0/16", TagSpecifications=spec)["Vpc"]["VpcId"]  # DNS never set
    orphan = ec2.create_internet_gateway(
        TagSpecifications=[{"ResourceType": "internet-gateway", "Tags": [{"Key": "launchpod:cluster", "Value": "c1"}]}]
    )["InternetGateway"]["InternetGatewayId"]  # created, never attached
    ec2_propagation.set_propagation_seconds(0)

    adapter = Ec2()
    assert adapter.ensure_vpc("10.30.0.0/16", TAGS) == vpc
    assert ec2.describe_vpc_attribute(VpcId=vpc, Attribute="enableDnsHostnames")["EnableDnsHostnames"]["Value"]
    assert adapter.ensure_internet_gateway(vpc, TAGS) == orphan
    assert (
        len(
            ec2.describe_internet_gateways(Filters=[{"Name": "tag:launchpod:cluster", "Values": ["c1"]}])[
                "InternetGateways"
            ]
        )
        == 1
    )
