"""HyperPod instances join their EKS cluster only when the VPC lets them: an egress route (NAT gateway
or VPC endpoints) and security groups open for the API server (443) and the kubelet (10250)."""

from __future__ import annotations

from typing import Any

import pytest

import sandbox.aws
from sandbox.aws import sagemaker as hyperpod
from tests.sandbox.aws.hyperpod_support import FAST
from tests.sandbox.aws.support import ROLE_ARN, wait_until


@pytest.fixture(autouse=True)
def fast_hyperpod(hyperpod_installed: None) -> None:
    """The HyperPod emulation with its transitions over within milliseconds: these tests wait for nodes to join."""
    sandbox.aws.install(FAST)


@pytest.fixture
def kube_nodes() -> dict[str, list[dict[str, Any]]]:
    """The Nodes HyperPod registers per EKS cluster."""
    seen: dict[str, list[dict[str, Any]]] = {}
    hyperpod.set_node_sink(lambda cluster, nodes: seen.update({cluster: list(nodes)}))
    return seen


@pytest.fixture
def vpc(client: Any) -> dict[str, Any]:
    """A VPC with two private subnets routed through a NAT gateway and an EKS cluster in them."""
    ec2 = client("ec2")
    vpc_id = ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    private = [
        ec2.create_subnet(VpcId=vpc_id, CidrBlock=f"10.1.{i * 16}.0/20", AvailabilityZone=z)["Subnet"]["SubnetId"]
        for i, z in enumerate(["us-east-1a", "us-east-1b"])
    ]
    public = ec2.create_subnet(VpcId=vpc_id, CidrBlock="10.1.200.0/24", AvailabilityZone="us-east-1a")["Subnet"]
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=public["SubnetId"], AllocationId=allocation)["NatGateway"]["NatGatewayId"]
    table = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat)
    for subnet in private:
        ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    compute = ec2.create_subnet(VpcId=vpc_id, CidrBlock="10.1.64.0/20", AvailabilityZone="us-east-1a")["Subnet"]
    cluster = client("eks").create_cluster(
        name="net-eks",
        roleArn=ROLE_ARN,
        resourcesVpcConfig={"subnetIds": private},
        accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"},
    )["cluster"]
    return {
        "vpc": vpc_id,
        "compute": compute["SubnetId"],
        "table": table,
        "arn": cluster["arn"],
        "clusterGroup": cluster["resourcesVpcConfig"]["clusterSecurityGroupId"],
    }


def _own_group(ec2: Any, vpc_id: str, name: str) -> str:
    """A group admitting only itself: what Launchpod made for HyperPod's nodes before it shared one with EKS."""
    group = ec2.create_security_group(GroupName=name, Description="nodes", VpcId=vpc_id)["GroupId"]
    self_rule = [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group}]}]
    ec2.authorize_security_group_ingress(GroupId=group, IpPermissions=self_rule)
    return group


def _create(sm: Any, vpc: dict[str, Any], subnet: str, group: str) -> None:
    # Continuous: HyperPod keeps cluster events only with continuous provisioning, and these tests read them.
    sm.create_cluster(
        ClusterName="hp",
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.g5.8xlarge",
                "InstanceCount": 1,
                "ExecutionRole": ROLE_ARN,
            }
        ],
        VpcConfig={"SecurityGroupIds": [group], "Subnets": [subnet]},
        Orchestrator={"Eks": {"ClusterArn": vpc["arn"]}},
        NodeProvisioningMode="Continuous",
    )


def _instance(sm: Any) -> dict[str, Any]:
    (summary,) = sm.list_cluster_nodes(ClusterName="hp")["ClusterNodeSummaries"]
    return summary["InstanceStatus"]


def _joined(sm: Any) -> bool:
    return bool(sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService")


def test_instances_in_the_clusters_security_group_with_a_nat_route_join(client, vpc, kube_nodes):
    ec2, sm = client("ec2"), client("sagemaker")
    ec2.associate_route_table(RouteTableId=vpc["table"], SubnetId=vpc["compute"])
    _create(sm, vpc, vpc["compute"], vpc["clusterGroup"])
    wait_until(lambda: _joined(sm))
    assert _instance(sm)["Status"] == "Running"
    hyperpod.sync_nodes()
    assert len(kube_nodes["net-eks"]) == 1
    assert kube_nodes["net-eks"][0]["metadata"]["annotations"]["sandbox.launchpod.dev/internet-egress"] == "true"


def test_a_subnet_without_egress_keeps_instances_pending_until_a_nat_route_is_added(client, vpc, kube_nodes):
    ec2, sm = client("ec2"), client("sagemaker")
    _create(sm, vpc, vpc["compute"], vpc["clusterGroup"])  # the compute subnet is on the VPC's main table
    status = wait_until(lambda: (s := _instance(sm)).get("Message") and s)
    assert status["Status"] == "Pending"
    assert f"from subnet {vpc['compute']}" in status["Message"] and "NAT gateway" in status["Message"]
    assert "ecr.api, ecr.dkr, s3, sts, ec2" in status["Message"]
    assert sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "Creating"
    hyperpod.sync_nodes()
    assert kube_nodes.get("net-eks", []) == []  # no Kubernetes Node registered
    events = sm.list_cluster_events(ClusterName="hp")["Events"]
    assert any("NAT gateway" in e["Description"] for e in events)

    ec2.associate_route_table(RouteTableId=vpc["table"], SubnetId=vpc["compute"])
    wait_until(lambda: _joined(sm))
    assert _instance(sm)["Status"] == "Running"


def test_vpc_endpoints_instead_of_a_nat_gateway_are_enough(client, vpc, kube_nodes):
    ec2, sm = client("ec2"), client("sagemaker")
    for service in ("ecr.api", "ecr.dkr", "sts", "ec2"):
        ec2.create_vpc_endpoint(
            VpcId=vpc["vpc"], ServiceName=f"com.amazonaws.us-east-1.{service}", VpcEndpointType="Interface"
        )
    ec2.create_vpc_endpoint(VpcId=vpc["vpc"], ServiceName="com.amazonaws.us-east-1.s3", VpcEndpointType="Gateway")
    _create(sm, vpc, vpc["compute"], vpc["clusterGroup"])
    wait_until(lambda: _joined(sm))
    # Joined, but with no route to the internet: the node is marked so, and pulls only the region's ECR.
    hyperpod.sync_nodes()
    (node,) = kube_nodes["net-eks"]
    assert node["metadata"]["annotations"]["sandbox.launchpod.dev/internet-egress"] == "false"


def test_a_node_group_that_admits_only_itself_cannot_reach_the_api_server(client, vpc):
    ec2, sm = client("ec2"), client("sagemaker")
    ec2.associate_route_table(RouteTableId=vpc["table"], SubnetId=vpc["compute"])
    group = _own_group(ec2, vpc["vpc"], "hyperpod-only")
    _create(sm, vpc, vpc["compute"], group)
    status = wait_until(lambda: (s := _instance(sm)).get("Message") and s)
    assert status["Status"] == "Pending" and "TCP 443" in status["Message"] and group in status["Message"]

    # Allowing the API both ways is not enough: the control plane must also reach the kubelet.
    api = [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "UserIdGroupPairs": [{"GroupId": group}]}]
    ec2.authorize_security_group_ingress(GroupId=vpc["clusterGroup"], IpPermissions=api)
    status = wait_until(lambda: "10250" in (_instance(sm).get("Message") or "") and _instance(sm))
    assert status["Status"] == "Pending"

    kubelet = [
        {
            "IpProtocol": "tcp",
            "FromPort": 10250,
            "ToPort": 10250,
            "UserIdGroupPairs": [{"GroupId": vpc["clusterGroup"]}],
        }
    ]
    ec2.authorize_security_group_ingress(GroupId=group, IpPermissions=kubelet)
    wait_until(lambda: _joined(sm))
