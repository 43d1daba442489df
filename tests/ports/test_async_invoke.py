"""AsyncInvoke's contract: the in-memory fake (tests/fakes/lambda_invoke.py) and
adapters.aws.lambda_invoke.invoke_async on the sandbox's Lambda (moto, functions run in-process) answer alike: an
event queued for a function that exists reaches it, and a function that does not exist is NotFound naming it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from launchpod.adapters.aws import lambda_invoke
from launchpod.domain.errors import NotFound
from launchpod.runtime.wiring import AsyncInvoke

from tests.fakes.lambda_invoke import Invokes
from tests.sandbox.aws import handlers_for_tests
from tests.sandbox.aws.support import wait_until

# The port; how a function is deployed (its name); the events it received.
Side = tuple[AsyncInvoke, Callable[[str], None], Callable[[], list[dict[str, Any]]]]


@pytest.fixture(params=["fake", "lambda"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "fake":
        fake = Invokes(functions=set())
        yield fake, fake.functions.add, lambda: [event for _, event in fake.calls]  # type: ignore[union-attr]
        return
    deploy = request.getfixturevalue("deploy")
    handlers_for_tests.RECEIVED.clear()
    yield lambda_invoke.invoke_async, lambda name: deploy(name, "record"), lambda: list(handlers_for_tests.RECEIVED)
    handlers_for_tests.RECEIVED.clear()


def test_an_event_queued_for_a_function_reaches_it(side: Side) -> None:
    invoke, deploy_function, received = side
    deploy_function("launchpod-log-pump")
    invoke("launchpod-log-pump", {"topic": "job:c1/default/train"})
    wait_until(lambda: received(), reason="the function was not invoked")
    assert received() == [{"topic": "job:c1/default/train"}]


def test_a_function_that_does_not_exist_is_not_found_naming_it(side: Side) -> None:
    with pytest.raises(NotFound, match=r"ResourceNotFoundException: Function not found: .*:function:ghost"):
        side[0]("ghost", {"topic": "x"})
