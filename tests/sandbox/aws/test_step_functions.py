"""In-process Lambda and the Step Functions interpreter: real handlers, Retry, Catch, scaled Wait."""

from __future__ import annotations

import json
import threading
from typing import Any

from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

from sandbox.aws import awslambda
from tests.sandbox.aws import handlers_for_tests
from tests.sandbox.aws.support import finished_execution, history_types, id_table, output_of, placeholder_zip


def _task(function_arn: str, **extra: Any) -> dict[str, Any]:
    return {
        "Type": "Task",
        "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": function_arn, "Payload.$": "$"},
        "OutputPath": "$.Payload",
        **extra,
    }


RETRY_AND_CATCH = {
    "Retry": [{"ErrorEquals": ["RetryableError"], "IntervalSeconds": 10, "MaxAttempts": 3, "BackoffRate": 2.0}],
    "Catch": [{"ErrorEquals": ["PermanentError"], "ResultPath": "$.error", "Next": "RecordFailure"}],
}


def _workflow(function_arn: str) -> dict[str, Any]:
    return {
        "StartAt": "Phase",
        "States": {
            "Phase": {**_task(function_arn, **RETRY_AND_CATCH), "End": True},
            "RecordFailure": {"Type": "Fail", "Error": "OperationFailed", "Cause": "phase failed"},
        },
    }


def test_retryable_error_is_retried_until_the_handler_succeeds(client, deploy, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine(_workflow(deploy("flaky", "flaky")))

    execution = sfn.start_execution(
        stateMachineArn=sm, name="op-retry", input=json.dumps({"key": "op-retry", "failures": 2})
    )
    result = finished_execution(sfn, execution["executionArn"])

    assert result["status"] == "SUCCEEDED"
    assert output_of(result) == {"attempts": 3}
    events = history_types(sfn, execution["executionArn"])
    assert events.count("TaskFailed") == 2
    assert events.count("TaskSucceeded") == 1


def test_executions_running_at_once_each_invoke_their_own_lambda_and_succeed(client, deploy, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine(_workflow(deploy("flaky", "flaky")))
    keys = [f"op-many-{i}" for i in range(16)]  # more than a connection pool's default ten

    started = [
        sfn.start_execution(stateMachineArn=sm, name=key, input=json.dumps({"key": key, "failures": i % 2}))
        for i, key in enumerate(keys)
    ]
    results = [finished_execution(sfn, execution["executionArn"]) for execution in started]

    assert [r["status"] for r in results] == ["SUCCEEDED"] * len(keys)
    assert [output_of(r) for r in results] == [{"attempts": 1 + i % 2} for i in range(len(keys))]


def test_permanent_error_goes_to_catch_with_the_error_name(client, deploy, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine(_workflow(deploy("broken", "broken")))
    calls_before = handlers_for_tests.CALLS["broken"]

    execution = sfn.start_execution(stateMachineArn=sm, name="op-fail", input=json.dumps({"name": "-bad-"}))
    result = finished_execution(sfn, execution["executionArn"])

    assert result["status"] == "FAILED"
    assert result["error"] == "OperationFailed"
    assert handlers_for_tests.CALLS["broken"] - calls_before == 1, "PermanentError must not be retried"
    history = sfn.get_execution_history(executionArn=execution["executionArn"])["events"]
    failed = next(e["taskFailedEventDetails"] for e in history if e["type"] == "TaskFailed")
    assert failed["error"] == "PermanentError"
    assert "is invalid" in json.loads(failed["cause"])["errorMessage"]


def test_wait_of_a_minute_is_compressed_by_the_time_scale(client, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine(
        {
            "StartAt": "Wait",
            "States": {"Wait": {"Type": "Wait", "Seconds": 60, "Next": "Done"}, "Done": {"Type": "Succeed"}},
        }
    )

    execution = sfn.start_execution(stateMachineArn=sm, input="{}")
    # 60 s at scale 0.01 is 0.6 s real; the timeout only guards against an unscaled Wait.
    result = finished_execution(sfn, execution["executionArn"], timeout=60)

    assert result["status"] == "SUCCEEDED"
    events = history_types(sfn, execution["executionArn"])
    assert "WaitStateEntered" in events
    assert "WaitStateExited" in events


def test_direct_invoke_runs_the_handler_with_a_lambda_context_and_environment(client, deploy):
    lam = client("lambda")
    deploy("echo", "echo", env={"SANDBOX_AWS_TEST_SETTING": "from-function-config"})

    response = lam.invoke(FunctionName="echo", Payload=json.dumps({"hello": "world"}))
    payload = json.loads(response["Payload"].read())

    assert "FunctionError" not in response
    assert payload["event"] == {"hello": "world"}
    assert payload["functionName"] == "echo"
    assert payload["memory"] == 256
    assert payload["arn"].endswith(":function:echo")
    assert payload["requestId"]
    assert payload["remainingPositive"] is True
    assert payload["env"] == "from-function-config"
    assert awslambda.invocations()[-1] == ("echo", {"hello": "world"})


def test_direct_invoke_of_a_failing_handler_returns_lambdas_error_document(client, deploy):
    lam = client("lambda")
    deploy("broken", "broken")

    response = lam.invoke(FunctionName="broken", Payload=json.dumps({"name": "x"}))
    payload = json.loads(response["Payload"].read())

    assert response["FunctionError"] == "Unhandled"
    assert payload["errorType"] == "PermanentError"
    assert payload["errorMessage"] == "cluster name 'x' is invalid"
    assert isinstance(payload["stackTrace"], list)


def test_unnamed_executions_get_distinct_names(client, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})

    first = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    second = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]

    assert first != second
    assert not first.endswith(":None")
    finished_execution(sfn, first)
    finished_execution(sfn, second)


def test_the_threads_of_ended_executions_are_let_go(client, state_machine):
    """A sandbox left running for days does not hold every execution's threads (moto keeps them all)."""
    from moto.stepfunctions.parser.utils import TMP_THREADS

    sfn = client("stepfunctions")
    sm = state_machine({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    for _ in range(3):
        finished_execution(sfn, sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"])
    ended = [t for t in TMP_THREADS if not t.is_alive()]
    assert ended  # moto kept them
    sfn.start_execution(stateMachineArn=sm, input="{}")
    assert not [t for t in ended if t in TMP_THREADS]


def test_aws_sdk_eks_integration_takes_pascal_case_and_names_errors_like_aws(client, state_machine):
    sfn = client("stepfunctions")
    sm = state_machine(
        {
            "StartAt": "Describe",
            "States": {
                "Describe": {
                    "Type": "Task",
                    "Resource": "arn:aws:states:::aws-sdk:eks:describeCluster",
                    "Parameters": {"Name": "missing"},
                    "Catch": [
                        {
                            "ErrorEquals": ["Eks.ResourceNotFoundException"],
                            "ResultPath": "$.error",
                            "Next": "Missing",
                        }
                    ],
                    "End": True,
                },
                "Missing": {"Type": "Pass", "End": True},
            },
        }
    )

    execution = sfn.start_execution(stateMachineArn=sm, input="{}")
    result = finished_execution(sfn, execution["executionArn"])

    assert result["status"] == "SUCCEEDED"
    assert output_of(result)["error"]["Error"] == "Eks.ResourceNotFoundException"


def test_unimportable_handler_fails_like_lambda_instead_of_trying_docker(client, role_arn):
    lam = client("lambda")
    lam.create_function(
        FunctionName="ghost",
        Runtime="python3.11",
        Role=role_arn,
        Handler="tests.sandbox.aws.no_such_module.handler",
        Code={"ZipFile": placeholder_zip()},
    )

    response = lam.invoke(FunctionName="ghost", Payload="{}")
    payload = json.loads(response["Payload"].read())

    assert response["FunctionError"] == "Unhandled"
    assert payload["errorType"] == "Runtime.ImportModuleError"
    assert "tests.sandbox.aws.no_such_module" in payload["errorMessage"]


def test_a_reader_never_sees_an_update_half_applied(client):
    """DynamoDB applies an UpdateExpression atomically; moto applies it action by action."""
    import threading

    ddb = client("dynamodb")
    id_table(ddb, "ops")
    ddb.put_item(TableName="ops", Item={"id": {"S": "op"}, "status": {"S": "RUNNING"}})
    fields = [f"f{i}" for i in range(40)]  # a wide update, so a half-applied one would be seen
    torn: list[dict] = []
    done = threading.Event()

    def write() -> None:
        for round_ in range(5):
            values = {":v": {"S": str(round_)}}
            ddb.update_item(
                TableName="ops",
                Key={"id": {"S": "op"}},
                UpdateExpression="SET " + ", ".join(f"{f} = :v" for f in fields),
                ExpressionAttributeValues=values,
            )
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    while not done.is_set():
        item = ddb.get_item(TableName="ops", Key={"id": {"S": "op"}}, ConsistentRead=True)["Item"]
        if len({item[f]["S"] for f in fields if f in item}) > 1 or 0 < sum(f in item for f in fields) < len(fields):
            torn.append(item)
    writer.join()
    assert torn == []


def test_no_write_lands_while_a_read_is_being_answered(client, monkeypatch):
    """DynamoDB answers a read from one version of the item. moto builds GetItem's answer from the
    stored item itself, so a write landing meanwhile broke it ("dictionary changed size during
    iteration", a 502 on GET /operations/{id} in a full CI run). Here a write is started while the
    answer is being built; it must wait for the answer."""
    import threading

    from moto.dynamodb import responses

    ddb = client("dynamodb")
    id_table(ddb, "maps")
    ddb.put_item(TableName="maps", Item={"id": {"S": "op"}, "phases": {"M": {}}})
    landed_during_read: list[bool] = []
    writers: list[threading.Thread] = []
    original = responses.DynamoResult.__init__

    def write() -> None:
        ddb.update_item(
            TableName="maps",
            Key={"id": {"S": "op"}},
            UpdateExpression="SET phases.#k = :v",
            ExpressionAttributeNames={"#k": "new"},
            ExpressionAttributeValues={":v": {"S": "RUNNING"}},
        )

    reader = threading.current_thread()

    def building_the_answer(self, result):  # type: ignore[no-untyped-def]
        if threading.current_thread() is reader and not landed_during_read:
            writer = threading.Thread(target=write)
            writers.append(writer)
            writer.start()
            writer.join(timeout=1.0)
            landed_during_read.append(not writer.is_alive())
        original(self, result)

    monkeypatch.setattr(responses.DynamoResult, "__init__", building_the_answer)
    first = ddb.get_item(TableName="maps", Key={"id": {"S": "op"}}, ConsistentRead=True)["Item"]
    writers[0].join()
    after = ddb.get_item(TableName="maps", Key={"id": {"S": "op"}}, ConsistentRead=True)["Item"]

    assert landed_during_read == [False]
    assert first["phases"]["M"] == {} and after["phases"]["M"] == {"new": {"S": "RUNNING"}}


def _catch_all_workflow(function_arn: str, **task: Any) -> dict[str, Any]:
    return {
        "StartAt": "Phase",
        "States": {
            "Phase": {
                **_task(function_arn, **task),
                "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Recorded"}],
                "End": True,
            },
            "Recorded": {"Type": "Pass", "Result": {"recorded": True}, "End": True},
        },
    }


def test_a_result_over_256_kib_fails_the_execution_past_a_catch_all(client, deploy, state_machine):
    """A phase whose result outgrows Step Functions' 256 KiB payload quota ends the execution with
    States.DataLimitExceeded: States.ALL cannot catch it, so a workflow's own failure recording never
    runs (concepts-error-handling.html)."""
    sfn = client("stepfunctions")
    sm = state_machine(_catch_all_workflow(deploy("sized", "sized")))

    under = sfn.start_execution(stateMachineArn=sm, input=json.dumps({"bytes": 250 * 1024}))
    over = sfn.start_execution(stateMachineArn=sm, input=json.dumps({"bytes": 257 * 1024}))

    fits = finished_execution(sfn, under["executionArn"])
    assert fits["status"] == "SUCCEEDED"
    assert len(json.loads(fits["output"])["blob"]) == 250 * 1024 - len(b'{"blob":""}')
    failed = finished_execution(sfn, over["executionArn"])
    assert failed["status"] == "FAILED"
    assert failed["error"] == "States.DataLimitExceeded"
    assert "exceeding the maximum number of bytes service limit" in failed["cause"]


def test_a_runtime_error_passes_a_catch_all_that_still_catches_task_errors(client, deploy, state_machine):
    """States.Runtime (here a path in the task's Parameters that the input lacks) is not caught by
    States.ALL, which still catches the task's own errors (concepts-error-handling.html)."""
    sfn = client("stepfunctions")
    echo = deploy("echo", "echo")
    missing_path = state_machine(
        _catch_all_workflow(echo, Parameters={"FunctionName": echo, "Payload": {"cluster.$": "$.missing"}}),
        name="missing-path",
    )
    task_error = state_machine(_catch_all_workflow(deploy("broken", "broken")), name="task-error")

    runtime = sfn.start_execution(stateMachineArn=missing_path, input="{}")
    caught = sfn.start_execution(stateMachineArn=task_error, input=json.dumps({"name": "-bad-"}))

    failed = finished_execution(sfn, runtime["executionArn"])
    assert failed["status"] == "FAILED"
    assert failed["error"] == "States.Runtime"
    recorded = finished_execution(sfn, caught["executionArn"])
    assert recorded["status"] == "SUCCEEDED"
    assert output_of(recorded) == {"recorded": True}


def test_a_stop_right_after_the_start_stops_the_execution(client, state_machine, monkeypatch):
    """Step Functions stops an execution whatever its worker is doing; moto's worker builds its environment on its
    own thread after StartExecution answers, here held back until the stop has arrived, as a loaded machine can."""
    start, stop, stop_asked = ExecutionWorker._execution_logic, ExecutionWorker.stop, threading.Event()

    def after_the_stop(self: Any) -> None:
        stop_asked.wait(30)
        start(self)

    def asked(self: Any, *args: Any, **kwargs: Any) -> Any:
        stop_asked.set()
        return stop(self, *args, **kwargs)

    monkeypatch.setattr(ExecutionWorker, "_execution_logic", after_the_stop)
    monkeypatch.setattr(ExecutionWorker, "stop", asked)
    sfn = client("stepfunctions")
    sm = state_machine({"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 3600, "End": True}}})
    arn = sfn.start_execution(stateMachineArn=sm, name="op-stop-at-once")["executionArn"]
    sfn.stop_execution(executionArn=arn, cause="Cancelled by alice")
    assert finished_execution(sfn, arn)["status"] == "ABORTED"
