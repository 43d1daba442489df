"""The instance facts' contract: the in-memory fake (tests/fakes/instance_facts.py) and adapters.aws.instance_facts
on the sandbox's EC2 answer each case alike: every type HyperPod offers that EC2 describes, one type's GPUs,
Neuron devices and EFA interfaces, and a type EC2 does not describe."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws.instance_facts import InstanceFacts as Adapter
from launchpod.domain.errors import InvalidInput
from launchpod.usecases.ports import InstanceFacts

from tests.fakes.instance_facts import Instances


@pytest.fixture(params=["fake", "ec2"])
def facts(request: pytest.FixtureRequest) -> InstanceFacts:
    if request.param == "fake":
        return Instances()
    request.getfixturevalue("aws")
    return Adapter()


@pytest.fixture(scope="module")
def described() -> dict[str, object]:
    """What the fake reads for every type: the reference both sides are compared with."""
    return dict(Instances().all())


def test_every_offered_type_ec2_describes_is_known(facts: InstanceFacts, described: dict[str, object]) -> None:
    assert facts.all() == described


# What AWS's instance type pages give these types (https://aws.amazon.com/ec2/instance-types/p5/, /g5/, /trn1/).
KNOWN = {
    "ml.p5.48xlarge": ("gpus", 8, "efa", 32),
    "ml.g5.8xlarge": ("gpus", 1, "efa", 1),
    "ml.trn1.32xlarge": ("neuron", 16, "efa", 8),
}


@pytest.mark.parametrize("instance_type", sorted(KNOWN))
def test_one_types_devices_are_what_aws_says_and_the_listings(facts: InstanceFacts, instance_type: str) -> None:
    device, count, _, efa = KNOWN[instance_type]
    found = facts.of(instance_type)
    assert (getattr(found, device), found.efa) == (count, efa)
    assert found == facts.all()[instance_type]


def test_a_type_ec2_does_not_describe_is_refused_naming_it(facts: InstanceFacts) -> None:
    with pytest.raises(InvalidInput, match=r"EC2 does not describe ml\.nothing\.large in this region") as refused:
        facts.of("ml.nothing.large")
    assert refused.value.details[0]["rule"] == "described_by_ec2"
