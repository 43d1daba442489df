"""The Region a workflow phase of a cluster runs in: the cluster's record's, or, before the cluster is
registered (its creation's first phases), the Region its request asked for."""

from __future__ import annotations

from launchpod.runtime import wiring
from launchpod.usecases import regions


def test_a_registered_cluster_runs_in_its_own_region_whatever_a_request_calls_region(tables):
    wiring.clusters().register("west", source="created", region="us-west-2")
    # an endpoint workflow's request names its model bucket's Region, not the cluster's
    with regions.in_workflow_region("west", {"region": "us-east-1", "bucket": "models"}):
        assert wiring.region() == "us-west-2"
    with regions.in_cluster_region("west"):
        assert wiring.region() == "us-west-2"
    assert wiring.region() == "us-east-1"


def test_a_cluster_being_created_runs_in_the_region_its_request_asked_for(tables):
    with regions.in_workflow_region("new", {"region": "eu-west-1", "name": "new"}):
        assert wiring.region() == "eu-west-1"
    with regions.in_workflow_region("new", {"name": "new"}):
        assert wiring.region() == "us-east-1"
