"""Faults inside Lambda functions (sandbox.lambda_env.faults): each reaches its caller as Lambda reports it, and
the Step Functions Task that invoked the function fails with the error name AWS documents, so a Retry written
from AWS's docs matches it (https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.gateway.admin.faults import Injection
from sandbox.lambda_env.faults import FUNCTION_FAULTS, FunctionFaults
from tests.sandbox.aws import handlers_for_tests
from tests.sandbox.aws.support import finished_execution, output_of, wait_until
from tests.sandbox.aws.test_lambda_environments import CONFIGS, _answer, lambdas, package  # noqa: F401 - fixtures

RETRY_LAMBDA = [
    {
        "ErrorEquals": ["Lambda.ServiceException", "Lambda.TooManyRequestsException"],
        "IntervalSeconds": 2,
        "MaxAttempts": 6,
        "BackoffRate": 2.0,
    },
    {"ErrorEquals": ["Lambda.Unknown"], "IntervalSeconds": 2, "MaxAttempts": 2, "BackoffRate": 2.0},
]


def _one_task(function_arn: str, retry: list[dict[str, Any]]) -> dict[str, Any]:
    """A phase as Launchpod's ASL writes it: the function's ARN as the Resource, a Catch on States.ALL."""
    return {
        "StartAt": "Phase",
        "States": {
            "Phase": {
                "Type": "Task",
                "Resource": function_arn,
                "Retry": retry,
                "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Recorded"}],
                "End": True,
            },
            "Recorded": {"Type": "Pass", "End": True},
        },
    }


def _failed_tasks(sfn: Any, execution_arn: str) -> list[str]:
    events = sfn.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
    return [e["lambdaFunctionFailedEventDetails"]["error"] for e in events if e["type"] == "LambdaFunctionFailed"]


def _run(client: Any, state_machine: Any, function_arn: str, retry: list[dict[str, Any]]) -> tuple[Any, str]:
    sfn = client("stepfunctions")
    machine = state_machine(_one_task(function_arn, retry))
    arn = sfn.start_execution(stateMachineArn=machine, input=json.dumps({"cluster": "c1"}))["executionArn"]
    return finished_execution(sfn, arn), arn


@pytest.mark.parametrize(
    ("kind", "error", "ran"),
    [("throttle", "Lambda.TooManyRequestsException", 1), ("serviceError", "Lambda.ServiceException", 1)],
)
def test_a_refused_invoke_is_named_as_step_functions_names_it_and_retried(
    client, deploy, state_machine, kind, error, ran
):
    arn = deploy("phase", "echo")
    FUNCTION_FAULTS.arm(kind, "phase")
    before = handlers_for_tests.CALLS["echo"]

    result, execution = _run(client, state_machine, arn, RETRY_LAMBDA)

    assert result["status"] == "SUCCEEDED" and "error" not in output_of(result)
    assert _failed_tasks(client("stepfunctions"), execution) == [error]
    assert handlers_for_tests.CALLS["echo"] - before == ran  # the refused invoke never ran the function


def test_an_environment_killed_mid_invocation_is_lambda_unknown_and_retried(client, deploy, state_machine):
    arn = deploy("phase", "echo")
    FUNCTION_FAULTS.arm("kill", "phase")
    before = handlers_for_tests.CALLS["echo"]

    result, execution = _run(client, state_machine, arn, RETRY_LAMBDA)

    assert result["status"] == "SUCCEEDED" and output_of(result)["event"] == {"cluster": "c1"}
    assert _failed_tasks(client("stepfunctions"), execution) == ["Lambda.Unknown"]
    assert handlers_for_tests.CALLS["echo"] - before == 2  # the lost answer's run, then the retry


def test_without_a_retry_a_timeout_reaches_the_catch_as_lambda_unknown(client, deploy, state_machine):
    arn = deploy("phase", "echo")
    FUNCTION_FAULTS.arm("timeout", "phase")

    result, _ = _run(client, state_machine, arn, [])

    error = output_of(result)["error"]
    assert result["status"] == "SUCCEEDED" and error["Error"] == "Lambda.Unknown"
    assert "Task timed out after 30.00 seconds" in error["Cause"]


def test_a_result_over_256_kib_fails_the_execution_past_a_catch_and_says_so_on_eventbridge(
    client, deploy, state_machine
):
    arn = deploy("phase", "echo")
    handlers_for_tests.RECEIVED.clear()
    events = client("events")
    # Launchpod's rule (registry.front, WorkflowStatus): an execution that ended without its Catch.
    pattern = {"source": ["aws.states"], "detail-type": ["Step Functions Execution Status Change"]}
    events.put_rule(Name="workflow-status", EventPattern=json.dumps(pattern))
    events.put_targets(Rule="workflow-status", Targets=[{"Id": "fn", "Arn": deploy("status", "record")}])
    FUNCTION_FAULTS.arm("stateTooLarge", "phase")

    result, execution = _run(client, state_machine, arn, RETRY_LAMBDA)

    assert result["status"] == "FAILED" and result["error"] == "States.DataLimitExceeded"
    [event] = wait_until(lambda: list(handlers_for_tests.RECEIVED))
    assert event["detail"]["executionArn"] == execution
    assert (event["detail"]["status"], event["detail"]["error"]) == ("FAILED", "States.DataLimitExceeded")


def test_a_response_over_six_megabytes_is_an_unhandled_function_error(client, deploy):
    deploy("phase", "echo")
    FUNCTION_FAULTS.arm("responseTooLarge", "phase")

    answer = client("lambda").invoke(FunctionName="phase", Payload=b"{}")

    assert answer["FunctionError"] == "Unhandled"
    assert json.loads(answer["Payload"].read())["errorType"] == "Function.ResponseSizeTooLarge"


def test_a_killed_environment_is_replaced_and_a_timed_out_one_too(lambdas):  # noqa: F811
    warm, _ = _answer(lambdas, "count")
    payload, failed = lambdas.invoke(CONFIGS["count"], {}, "kill")
    after, _ = _answer(lambdas, "count")

    assert failed and json.loads(payload)["errorType"] == "Runtime.ExitError"
    assert "Runtime exited" in json.loads(payload)["errorMessage"]
    assert after["pid"] != warm["pid"] and after["calls"] == 1

    payload, failed = lambdas.invoke(CONFIGS["count"], {}, "timeout")
    again, _ = _answer(lambdas, "count")
    assert failed and json.loads(payload)["errorType"] == "Sandbox.Timedout"
    assert "Task timed out after 10.00 seconds" in json.loads(payload)["errorMessage"]
    assert again["pid"] != after["pid"]


def test_an_oversized_answer_keeps_its_environment_warm(lambdas):  # noqa: F811
    warm, _ = _answer(lambdas, "count")
    payload, failed = lambdas.invoke(CONFIGS["count"], {}, "responseTooLarge")
    padded, padded_failed = lambdas.invoke(CONFIGS["count"], {}, "stateTooLarge")
    after, _ = _answer(lambdas, "count")

    assert failed and json.loads(payload)["errorType"] == "Function.ResponseSizeTooLarge"
    assert not padded_failed and len(padded.encode()) > 262144 and json.loads(padded)["calls"] == 3
    assert after["pid"] == warm["pid"] and after["calls"] == 4


def test_rates_are_drawn_once_per_invocation_and_repeat_with_their_seed():
    def draws() -> list[str | None]:
        faults = FunctionFaults()
        faults.rates({"kill": 0.2, "throttle": 0.1}, functions=["create-hyperpod"], seed=7)
        return [faults.take("launchpod-create-hyperpod") for _ in range(200)] + [faults.take("launchpod-api")]

    first = draws()
    assert first == draws()
    assert first[-1] is None  # a function not named is never faulted
    assert 20 <= first.count("kill") <= 60 and 5 <= first.count("throttle") <= 35


def test_an_armed_fault_is_spent_after_its_count_and_counted():
    faults = FunctionFaults()
    faults.arm("timeout", "network", count=2)

    taken = [faults.take("launchpod-network") for _ in range(3)]

    assert taken == ["timeout", "timeout", None]
    assert faults.describe()["injected"] == {"timeout": 2}
    with pytest.raises(ValueError, match="kind is one of"):
        faults.arm("explode")


def test_the_faults_endpoint_arms_and_refuses_function_faults():
    armed = Injection(None, {"functionFault": {"kind": "kill", "function": "create-hyperpod"}}).apply()
    refused = Injection(None, {"functionFaultRates": {"rates": {"kill": 0.8, "timeout": 0.5}}}).apply()

    assert armed.error is None
    assert FUNCTION_FAULTS.describe()["armed"] == [{"kind": "kill", "function": "create-hyperpod", "left": 1}]
    assert refused.error == "the rates add up to more than 1"
