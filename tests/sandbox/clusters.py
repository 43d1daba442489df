"""The clusters the end-to-end tests (and the unit tests of a provision request) start from: the request for
one of Launchpod's, a control plane in the sandbox's two zones and HyperPod in the first (HyperPod's instance
groups launch into one Availability Zone's subnet; EKS wants subnets in at least two,
https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html); and an EKS cluster someone made without
Launchpod, to import."""

from __future__ import annotations

from typing import Any

from tests.sandbox.aws.support import wait_until

ZONES = ["us-east-1a", "us-east-1b"]
P5_GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}  # one 8-GPU node


def cluster_body(name: str, *groups: dict[str, Any], **hyperpod: Any) -> dict[str, Any]:
    """POST /api/clusters/provision's body: ``name`` with ``groups`` (and any other HyperPod fields)."""
    return {
        "name": name,
        "availabilityZones": list(ZONES),
        "hyperpod": {"availabilityZone": ZONES[0], "instanceGroups": list(groups), **hyperpod},
    }


def their_vpc(sandbox: Any, network: str) -> tuple[str, list[str]]:
    """A VPC made outside Launchpod, ``network``.0.0/16, with a /20 subnet in each of the two zones: its id and
    the subnets' ids."""
    ec2 = sandbox.aws("ec2")
    vpc = ec2.create_vpc(CidrBlock=f"{network}.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"{network}.{i * 16}.0/20", AvailabilityZone=z)["Subnet"]["SubnetId"]
        for i, z in enumerate(ZONES)
    ]
    return vpc, subnets


def their_eks_cluster(sandbox: Any, name: str, mode: str = "API_AND_CONFIG_MAP", network: str = "10.77") -> None:
    """An ACTIVE EKS cluster made outside Launchpod, in a VPC of its own (``their_vpc``), with authentication
    ``mode``."""
    _, subnets = their_vpc(sandbox, network)
    eks = sandbox.aws("eks")
    eks.create_cluster(
        name=name,
        roleArn="arn:aws:iam::123456789012:role/their-eks-role",
        resourcesVpcConfig={"subnetIds": subnets},
        accessConfig={"authenticationMode": mode},
    )
    wait_until(lambda: eks.describe_cluster(name=name)["cluster"]["status"] == "ACTIVE", reason=f"{name} ACTIVE")


VIEW_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"


def grant_view(sandbox: Any, cluster: str, principal_arn: str) -> None:
    """An access entry for ``principal_arn`` on the EKS cluster, with AmazonEKSViewPolicy across the cluster:
    it reads the cluster's objects and writes none."""
    eks = sandbox.aws("eks")
    eks.create_access_entry(clusterName=cluster, principalArn=principal_arn)
    eks.associate_access_policy(
        clusterName=cluster, principalArn=principal_arn, policyArn=VIEW_POLICY, accessScope={"type": "cluster"}
    )
