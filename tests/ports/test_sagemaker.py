"""SageMaker's contract, as far as a cluster that does not exist goes: the in-memory fake (tests/fakes/sagemaker.py)
and adapters.aws.sagemaker on the sandbox's SageMaker answer alike for DescribeCluster, its nodes, its events, an
event, the account's clusters and a training plan nobody bought."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws.sagemaker import SageMaker as Adapter
from launchpod.domain.errors import PermanentError
from launchpod.usecases.ports import HyperPodNodes, HyperPods

from sandbox.aws import sagemaker as hyperpod
from tests.fakes.sagemaker import SageMaker


class Port(HyperPodNodes, HyperPods):
    """The reads the use cases make of SageMaker's HyperPod."""


@pytest.fixture(params=["fake", "sagemaker"])
def sagemaker(request: pytest.FixtureRequest) -> Port:
    if request.param == "fake":
        return SageMaker({})
    hyperpod.install()  # the sandbox's HyperPod
    return Adapter()


def test_a_cluster_nobody_created_describes_as_none(sagemaker: Port) -> None:
    assert sagemaker.hyperpod_cluster("ghost") is None
    assert sagemaker.hyperpod_clusters() == []


def test_the_nodes_and_events_of_a_cluster_that_does_not_exist_are_refused_naming_it(sagemaker: Port) -> None:
    with pytest.raises(PermanentError, match="ListClusterNodes failed: ResourceNotFound: Cluster ghost not found"):
        sagemaker.list_nodes("ghost")
    with pytest.raises(PermanentError, match="ListClusterEvents failed: ResourceNotFound: Cluster ghost not found"):
        sagemaker.list_events("ghost", {}, 10, None)


def test_a_node_or_an_event_of_a_cluster_that_does_not_exist_is_none(sagemaker: Port) -> None:
    assert sagemaker.describe_node("ghost", "i-0123456789abcdef0") is None
    assert sagemaker.describe_event("ghost", "e-1") is None


def test_a_training_plan_nobody_bought_is_none(sagemaker: Port) -> None:
    assert sagemaker.training_plan("arn:aws:sagemaker:us-east-1:123456789012:training-plan/none") is None
