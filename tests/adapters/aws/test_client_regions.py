"""A cluster's AWS calls go to its Region: every regional client follows the Region the entrypoint set,
through thread pools too, while the deployment's own services stay in the deployment's Region."""

from __future__ import annotations

from launchpod.adapters.aws import clients
from launchpod.adapters.aws.ec2 import Ec2
from launchpod.domain.concurrency import ContextPool


def _region_called(ec2: Ec2) -> str:
    """The Region whose endpoint the adapter's next call goes to."""
    return str(ec2.ec2.meta.region_name)


def test_the_same_adapter_calls_the_region_it_is_asked_in(aws):
    ec2 = Ec2()
    assert _region_called(ec2) == "us-east-1"
    with clients.in_region("eu-west-1"):
        assert _region_called(ec2) == "eu-west-1"
        with ContextPool(max_workers=2) as pool:  # a pool's tasks keep the caller's Region
            assert list(pool.map(lambda _: _region_called(ec2), range(2))) == ["eu-west-1", "eu-west-1"]
    assert _region_called(ec2) == "us-east-1"


def test_a_cluster_region_is_looked_up_only_when_a_regional_call_needs_it(aws):
    asked: list[str] = []

    def find() -> str:
        asked.append("registry")
        return "us-west-2"

    with clients.in_region(find):
        assert clients.client("dynamodb").meta.region_name == "us-east-1"  # the deployment's tables stay home
        assert asked == []
        assert _region_called(Ec2()) == "us-west-2" and _region_called(Ec2()) == "us-west-2"
    assert asked == ["registry"]
