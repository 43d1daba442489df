"""Service Quotas' contract: the in-memory fake (tests/fakes/service_quotas.py) and adapters.aws.service_quotas on
the sandbox's Service Quotas answer each case alike: an applied SageMaker quota by name with its value and code,
a name that is no quota, and several names read at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from launchpod.adapters.aws.service_quotas import ServiceQuotas as Adapter
from launchpod.usecases.ports import Quotas

from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.sagemaker import capacity
from tests.fakes.service_quotas import ServiceQuotas

P5, G5 = "ml.p5.48xlarge", "ml.g5.8xlarge"
Side = tuple[Quotas, Callable[[str, float], None]]


@pytest.fixture(params=["fake", "servicequotas"])
def side(request: pytest.FixtureRequest) -> Side:
    """The port, and how a quota comes to be applied at a value (an increase AWS granted)."""
    if request.param == "fake":
        fake = ServiceQuotas({})
        return fake, lambda instance_type, value: fake.quotas.__setitem__(capacity.quota_name(instance_type), value)
    hyperpod.install()  # the sandbox's SageMaker, whose quotas Service Quotas serves
    return Adapter(), capacity.set_quota


def test_an_applied_quota_is_found_by_name_with_its_value_and_code(side: Side) -> None:
    quotas, apply = side
    apply(P5, 4.0)
    found = quotas.sagemaker_quota(f"{P5} for cluster usage")
    assert found is not None
    assert (found.name, found.value) == (f"{P5} for cluster usage", 4.0)
    assert found.code.startswith("L-")


def test_a_name_that_is_no_quota_is_none(side: Side) -> None:
    assert side[0].sagemaker_quota("ml.nothing.large for cluster usage") is None


def test_several_names_are_read_at_once_and_only_those(side: Side) -> None:
    quotas, apply = side
    apply(P5, 4.0)
    apply(G5, 16.0)
    names = {f"{P5} for cluster usage", f"{G5} for cluster usage", "ml.nothing.large for cluster usage"}
    found = quotas.sagemaker_quotas(names)
    assert {n: q.value for n, q in found.items()} == {
        f"{P5} for cluster usage": 4.0,
        f"{G5} for cluster usage": 16.0,
    }
