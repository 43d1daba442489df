"""A cluster's Region: only one SageMaker HyperPod supports, and zones of that Region."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.common import HYPERPOD_REGIONS
from launchpod.domain.dependencies.objects import HMA_ACCOUNTS
from pydantic import ValidationError

GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}


def test_the_regions_offered_are_those_hyperpods_health_agent_is_published_in():
    # HyperPod on EKS needs its health-monitoring agent, published per Region (domain.dependencies.objects).
    assert set(HYPERPOD_REGIONS) == set(HMA_ACCOUNTS)


def test_a_region_hyperpod_does_not_run_in_is_refused_naming_the_supported_ones():
    with pytest.raises(ValidationError) as refused:
        CreateClusterRequest(name="c", region="me-central-1", availabilityZones=["me-central-1a", "me-central-1b"])
    [error] = refused.value.errors()
    assert error["type"] == "hyperpod_region" and error["loc"] == ("region",)
    assert (
        "does not run in me-central-1" in error["msg"] and "us-west-2" in error["msg"] and "eu-west-1" in error["msg"]
    )


def test_zones_of_another_region_are_refused_by_name():
    with pytest.raises(ValidationError) as refused:
        CreateClusterRequest(name="c", region="us-west-2", availabilityZones=["us-east-1a", "us-west-2b"])
    error = refused.value.errors()[0]
    assert error["type"] == "zone_in_region" and "us-east-1a not in us-west-2" in error["msg"]
    assert "us-west-2b" not in error["msg"]


def test_provision_refuses_a_hyperpod_zone_outside_the_region():
    with pytest.raises(ValidationError) as refused:
        ProvisionClusterRequest(
            name="c",
            region="us-west-2",
            availabilityZones=["us-west-2a", "us-west-2b"],
            hyperpod={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]},
        )
    assert "hyperpod.availabilityZone us-east-1a is not in the cluster's Region us-west-2" in str(refused.value)


def test_zones_of_the_region_are_taken():
    taken = CreateClusterRequest(name="c", region="us-west-2", availabilityZones=["us-west-2a", "us-west-2d"])
    assert taken.region == "us-west-2"
    # no Region asked: the deployment's, whose zones EC2 checks (the offered_zone refusal)
    assert CreateClusterRequest(name="c", availabilityZones=["eu-west-1a", "eu-west-1b"]).region is None
