"""What the provisioning routes share: an ACTIVE control plane before dependencies or storage, and the zones
of an existing control plane, which the planner compares with the zones a request asks for."""

from __future__ import annotations

import pytest
from launchpod.domain.errors import Conflict
from launchpod.usecases.provisioning import require_active, subnet_zones

from tests.usecases.fakes import ControlPlanes, Subnets


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


def test_storage_on_a_control_plane_still_creating_is_refused_with_its_state() -> None:
    eks = ControlPlanes({"train": {"name": "train", "status": "CREATING"}})
    with pytest.raises(Conflict) as refused:
        require_active("train", "storage needs", eks_clusters=eks)
    assert str(refused.value) == "The EKS control plane of train is CREATING; storage needs an ACTIVE cluster."


def test_dependencies_without_a_control_plane_say_it_is_not_created() -> None:
    with pytest.raises(Conflict) as refused:
        require_active("train", "dependencies need", eks_clusters=ControlPlanes({}))
    assert "of train is not created; dependencies need an ACTIVE cluster" in str(refused.value)


def test_an_active_control_plane_passes() -> None:
    require_active("train", "storage needs", eks_clusters=ControlPlanes({"train": {"status": "ACTIVE"}}))
