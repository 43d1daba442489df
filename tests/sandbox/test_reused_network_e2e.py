"""HyperPod in a VPC the user brought: its compute subnet needs a way out, and Launchpod says which
route is missing before CreateCluster instead of leaving nodes that can never join."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.clusters import ZONES, their_vpc

pytestmark = pytest.mark.e2e

GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}


def test_a_reused_vpc_without_a_nat_route_fails_before_create_cluster_then_succeeds_once_routed(sandbox):
    ec2 = sandbox.aws("ec2")
    vpc, subnets = their_vpc(sandbox, "10.60")
    with sandbox.client() as c:
        op = c.post(
            "/api/clusters",
            json={"name": "e2e-byo", "availabilityZones": ZONES, "network": {"vpcId": vpc, "subnetIds": subnets}},
        ).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"
    sandbox.install_dependencies("e2e-byo")

    with sandbox.client() as c:
        op = c.post(
            "/api/clusters/e2e-byo/hyperpod", json={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}
        )
        op = op.json()["operation"]["id"]
    failed = sandbox.wait_operation(op)
    assert failed["status"] == "FAILED"
    phase = next(p for p in failed["phases"] if p["status"] == "FAILED")
    assert phase["name"] == "ComputeSubnet"
    assert f"no way out of {vpc}" in phase["message"] and "0.0.0.0/0 route to a NAT gateway" in phase["message"]
    clusters = sandbox.aws("sagemaker").list_clusters()["ClusterSummaries"]
    assert "e2e-byo" not in [c["ClusterName"] for c in clusters]  # CreateCluster was never called

    # The user adds a NAT gateway to the control plane's private subnets; the retry picks their route table.
    public = ec2.create_subnet(VpcId=vpc, CidrBlock="10.60.200.0/24", AvailabilityZone="us-east-1a")["Subnet"]
    nat = ec2.create_nat_gateway(SubnetId=public["SubnetId"], AllocationId=ec2.allocate_address()["AllocationId"])
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    ec2.create_route(
        RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat["NatGateway"]["NatGatewayId"]
    )
    for subnet in subnets:
        ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    with sandbox.client() as c:
        assert c.post(f"/api/operations/{op}/retry").status_code == 202
    done = sandbox.wait_operation(op, timeout=120)
    assert done["status"] == "SUCCEEDED", done
    compute = next(p for p in done["phases"] if p["name"] == "ComputeSubnet")
    assert table in compute["message"]
    nodes = k8s.CoreV1Api(sandbox.kube("e2e-byo")).list_node().items
    assert len(nodes) == 1 and nodes[0].metadata.name.startswith("hyperpod-i-")
