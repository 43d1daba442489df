"""The zones of an existing control plane, which the planner compares with the zones a request asks for."""

from __future__ import annotations

from launchpod.usecases.provisioning import subnet_zones

from tests.usecases.fakes import Subnets


def test_the_zones_are_those_of_the_eks_clusters_subnets_in_order() -> None:
    eks = {"resourcesVpcConfig": {"subnetIds": ["subnet-b", "subnet-a"]}}
    ec2 = Subnets({"subnet-a": "us-east-1a", "subnet-b": "us-east-1b"})
    assert subnet_zones(eks, ec2=ec2) == ["us-east-1b", "us-east-1a"]
    assert ec2.asked == [["subnet-b", "subnet-a"]]


def test_no_control_plane_has_no_zones_and_ec2_is_not_asked() -> None:
    ec2 = Subnets({"subnet-a": "us-east-1a"})
    assert subnet_zones(None, ec2=ec2) == []
    assert subnet_zones({"resourcesVpcConfig": {"subnetIds": []}}, ec2=ec2) == []
    assert ec2.asked == []
