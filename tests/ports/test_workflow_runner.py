"""The workflow runner's contract: the in-memory fake (tests/fakes/operations.py Workflows) and StepFunctions
on the sandbox's Step Functions answer each case alike: the ARN known before the start, a second start of one
name, a stop, a stop of an execution that does not exist, and waking a task on a token no task waits on."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

import pytest
from launchpod.adapters.aws.sfn import StepFunctions
from launchpod.domain.operations import WorkflowRunner

from tests.fakes.operations import Workflows
from tests.sandbox.aws.support import wait_until

WORKFLOW = "create-control-plane"
# An execution that stays RUNNING for the test's length: a Wait the sandbox scales to 36 real seconds.
WAITING = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 3600, "End": True}}}


class Runner(WorkflowRunner, Protocol):
    """The runner, and the wake-up of a task parked on a token (the await phases and the events use it)."""

    def send_task_success(self, token: str, output: dict[str, Any]) -> bool: ...


Side = tuple[Runner, Callable[[], list[str]], Callable[[str], bool]]


@pytest.fixture(params=["fake", "stepfunctions"])
def side(request: pytest.FixtureRequest) -> Side:
    """The runner, the names of the executions it started, and whether one was stopped."""
    if request.param == "fake":
        fake = Workflows(waiting=set())  # no task waits on a token yet, as on a fresh Step Functions
        return fake, lambda: [n for _, n, _ in fake.started], lambda arn: arn in fake.stopped
    sfn = request.getfixturevalue("client")("stepfunctions")
    machine = sfn.create_state_machine(
        name=f"launchpod-{WORKFLOW}", definition=json.dumps(WAITING), roleArn=request.getfixturevalue("role_arn")
    )["stateMachineArn"]

    def names() -> list[str]:
        return sorted(e["name"] for e in sfn.list_executions(stateMachineArn=machine)["executions"])

    def stopped(arn: str) -> bool:  # Step Functions ends a stopped execution shortly after StopExecution answers
        return bool(
            wait_until(
                lambda: sfn.describe_execution(executionArn=arn)["status"] == "ABORTED",
                timeout=20,
                reason=f"{arn} was not ABORTED",
            )
        )

    return StepFunctions({WORKFLOW: machine}), names, stopped


DOCUMENT: dict[str, Any] = {"operationId": "op-1", "attempt": 1}


def test_an_execution_has_the_arn_named_before_its_start(side: Side) -> None:
    runner, names, _ = side
    arn = runner.execution_arn(WORKFLOW, "op-1")
    assert arn.startswith("arn:aws:states:us-east-1:123456789012:execution:") and arn.endswith(":op-1")
    assert runner.start(WORKFLOW, "op-1", DOCUMENT) == arn
    assert names() == ["op-1"]


def test_a_second_start_of_one_name_starts_nothing_more(side: Side) -> None:
    runner, names, _ = side
    first = runner.start(WORKFLOW, "op-1", DOCUMENT)
    assert runner.start(WORKFLOW, "op-1", DOCUMENT) == first
    runner.start(WORKFLOW, "op-1-r1", DOCUMENT)
    assert names() == ["op-1", "op-1-r1"]


def test_a_stop_ends_the_execution_and_a_stop_of_none_is_quiet(side: Side) -> None:
    runner, _, stopped = side
    arn = runner.start(WORKFLOW, "op-1", DOCUMENT)
    runner.stop(arn, "Cancelled by alice")
    assert stopped(arn)
    runner.stop(runner.execution_arn(WORKFLOW, "op-never"), "Cancelled by alice")


def test_waking_a_task_on_a_token_no_task_waits_on_says_so(side: Side) -> None:
    runner = side[0]
    assert runner.send_task_success("AAAAKgAAAAIAAAAAAAAAAQ-not-waiting", {"status": "InService"}) is False
