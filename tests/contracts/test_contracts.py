"""Contracts refuse what AWS would refuse, with the field named."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest, NetworkRequest
from launchpod.contracts.common import SUPPORTED_KUBERNETES_VERSIONS, Role
from pydantic import ValidationError

ZONES = ["us-east-1a", "us-east-1b"]


@pytest.mark.parametrize("name", ["a", "ml-team-a", "A1", "a--b", "x" * 63])
def test_cluster_names_sagemaker_accepts(name):
    assert CreateClusterRequest(cluster=name, availabilityZones=ZONES).cluster == name


@pytest.mark.parametrize("name", ["", "a_b", "-a", "a-", "x" * 64, "a.b"])
def test_cluster_names_sagemaker_refuses(name):
    with pytest.raises(ValidationError) as caught:
        CreateClusterRequest(name=name, availabilityZones=ZONES)
    assert caught.value.errors()[0]["loc"] == ("name",)


def test_zones_must_be_two_distinct_or_more():
    with pytest.raises(ValidationError):
        CreateClusterRequest(name="c", availabilityZones=["us-east-1a"])
    with pytest.raises(ValidationError, match="distinct"):
        CreateClusterRequest(name="c", availabilityZones=["us-east-1a", "us-east-1a"])


def test_unknown_fields_are_refused():
    with pytest.raises(ValidationError) as caught:
        CreateClusterRequest.model_validate({"name": "c", "availabilityZones": ZONES, "colour": "red"})
    assert caught.value.errors()[0]["type"] == "extra_forbidden"


def test_network_is_either_new_or_reused_with_subnets():
    assert NetworkRequest(vpcCidr="10.0.0.0/16").vpcCidr == "10.0.0.0/16"
    with pytest.raises(ValidationError, match="not both"):
        NetworkRequest(vpcCidr="10.0.0.0/16", vpcId="vpc-12345678", subnetIds=["subnet-1", "subnet-2"])
    with pytest.raises(ValidationError, match="both vpcId and subnetIds"):
        NetworkRequest(vpcId="vpc-12345678")
    with pytest.raises(ValidationError, match="two distinct"):
        NetworkRequest(vpcId="vpc-12345678", subnetIds=["subnet-1"])


def test_roles_include_the_ones_below():
    assert Role.ADMIN.allows(Role.OPERATOR) and Role.OPERATOR.allows(Role.VIEWER)
    assert not Role.VIEWER.allows(Role.OPERATOR) and not Role.OPERATOR.allows(Role.ADMIN)


def test_kubernetes_version_defaults_to_the_newest_hyperpod_supports_in_eks_standard_support():
    assert CreateClusterRequest(name="c", availabilityZones=ZONES).kubernetesVersion == "1.34"
    assert SUPPORTED_KUBERNETES_VERSIONS[0] == "1.34"


@pytest.mark.parametrize("version", ["1.32", "1.33", "1.35", "1.99"])
def test_any_other_kubernetes_version_is_refused_listing_the_supported_ones(version):
    # 1.32 and 1.33 are in EKS extended support; 1.35 is not (yet) supported by HyperPod
    with pytest.raises(ValidationError) as caught:
        CreateClusterRequest(name="c", availabilityZones=ZONES, kubernetesVersion=version)
    error = caught.value.errors()[0]
    assert error["loc"] == ("kubernetesVersion",)
    assert f"Kubernetes {version} is not supported; supported versions: 1.34" in error["msg"]


def test_a_training_plan_takes_exactly_the_instance_types_aws_reserves():
    """The plan form's types are SageMaker's ReservedCapacityInstanceType enum in AWS's service model: a type
    AWS adds shows up here as a failure, not as a 422 a user cannot get past."""
    from typing import get_args

    import botocore.session
    from launchpod.contracts.training_plans import ReservedInstanceType

    model = botocore.session.get_session().get_service_model("sagemaker")
    assert sorted(get_args(ReservedInstanceType)) == sorted(model.shape_for("ReservedCapacityInstanceType").enum)
