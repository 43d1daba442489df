"""EventBridge rules deliver to Lambda targets as AWS does, and task-token tasks sleep on simulated
time until SendTaskSuccess wakes them: what create-hyperpod's wait on HyperPod's events rests on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.aws import eventbridge
from tests.sandbox.aws import handlers_for_tests
from tests.sandbox.aws.support import finished_execution, output_of, wait_until

PATTERN = {"source": ["aws.sagemaker"], "detail-type": ["SageMaker HyperPod Cluster State Change"]}


@pytest.fixture(autouse=True)
def received() -> list[dict[str, Any]]:
    handlers_for_tests.RECEIVED.clear()
    return handlers_for_tests.RECEIVED


def _rule(client: Any, name: str, target_arn: str, pattern: dict[str, Any] = PATTERN) -> None:
    events = client("events")
    events.put_rule(Name=name, EventPattern=json.dumps(pattern))
    events.put_targets(Rule=name, Targets=[{"Id": "fn", "Arn": target_arn}])


def _state_change(cluster: str, status: str) -> None:
    detail = {"ClusterName": cluster, "ClusterStatus": status}
    eventbridge.put_event("123456789012", "us-east-1", "aws.sagemaker", PATTERN["detail-type"][0], detail, [])


def test_a_rule_invokes_its_lambda_target_with_the_event_as_aws_delivers_it(client, deploy, received):
    _rule(client, "hyperpod-state", deploy("record-events", "record"))
    _state_change("hp", "InService")
    [event] = wait_until(lambda: list(received))
    assert event["source"] == "aws.sagemaker" and event["detail-type"] == PATTERN["detail-type"][0]
    assert event["detail"] == {"ClusterName": "hp", "ClusterStatus": "InService"}
    assert event["time"].endswith("Z") and "T" in event["time"]  # ISO 8601, as powertools' EventBridgeEvent reads it
    assert "ingestion-time" not in event


def test_a_disabled_rule_delivers_nothing(client, deploy, received):
    target = deploy("record-events", "record")
    _rule(client, "hyperpod-state", target)
    client("events").disable_rule(Name="hyperpod-state")
    _state_change("hp", "Creating")
    # An enabled rule for another source, as a sentinel: once its event arrives, the first one would have.
    _rule(client, "sentinel", target, {"source": ["launchpod.test"]})
    client("events").put_events(Entries=[{"Source": "launchpod.test", "DetailType": "t", "Detail": "{}"}])
    wait_until(lambda: list(received))
    assert [e["source"] for e in received] == ["launchpod.test"]


def _callback_machine(function_arn: str, timeout_seconds: int) -> dict[str, Any]:
    return {
        "StartAt": "Await",
        "States": {
            "Await": {
                "Type": "Task",
                "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
                "Parameters": {"FunctionName": function_arn, "Payload": {"taskToken.$": "$$.Task.Token"}},
                "TimeoutSeconds": timeout_seconds,
                "Catch": [{"ErrorEquals": ["States.Timeout"], "ResultPath": None, "Next": "TimedOut"}],
                "End": True,
            },
            "TimedOut": {"Type": "Pass", "Result": {"timedOut": True}, "End": True},
        },
    }


def test_send_task_success_wakes_the_parked_task_with_its_output(client, deploy, state_machine, received):
    sfn = client("stepfunctions")
    arn = state_machine(_callback_machine(deploy("park", "record"), 3600))
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    [parked] = wait_until(lambda: list(received))
    sfn.send_task_success(taskToken=parked["taskToken"], output=json.dumps({"status": "InService"}))
    assert output_of(finished_execution(sfn, execution)) == {"status": "InService"}


def test_a_task_token_timeout_runs_on_simulated_time(client, deploy, state_machine):
    # 600 simulated seconds at the tests' scale of 0.01 are 6 real seconds, inside finished_execution's 10.
    sfn = client("stepfunctions")
    arn = state_machine(_callback_machine(deploy("park", "record"), 600))
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    assert output_of(finished_execution(sfn, execution)) == {"timedOut": True}
