"""Step Functions as AWS runs it, only faster, for moto 5.2.5's interpreter:

* **time scaling** - Wait states and Retry back-off last ``time_scale`` real seconds per ASL second (see
  ``sandbox.aws.clock``);
* **interpreter fixes** - request/response casing normalisation (getmoto/moto#10076), unique names for
  unnamed executions, and AWS-style aws-sdk error names.

The hooks touch private moto internals; moto is pinned exactly for this reason. Background and the
experiments behind each: ``../shared/reference/sandbox-feasibility.md`` sections 1.2-1.5.
"""

from __future__ import annotations

import json
import threading
import time
import types
import uuid
import weakref
from typing import Any

from sandbox.aws import clock
from sandbox.aws.core import once, patch


@once
def install_sfn_time_scaling() -> None:
    """Scale Wait states, Retry back-off and task-token timeouts by ``clock.get_time_scale()`` (read at
    each wait)."""
    from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service.state_task_service_callback import (
        StateTaskServiceCallback,
    )
    from moto.stepfunctions.parser.asl.component.state.wait.wait_function.wait_function import (
        WaitFunction,
    )

    def _eval_body(self: Any, env: Any) -> None:
        seconds = self._get_wait_seconds(env=env)
        if seconds > 0:
            # moto's own _wait_interval re-waits `seconds - int(elapsed)` whenever the event
            # returns early, so it cannot take fractional seconds. Waiting on the program-state
            # event keeps StopExecution able to interrupt the Wait.
            env.program_state_event.wait(clock.real_seconds(seconds))

    patch(WaitFunction, "_eval_body", _eval_body)

    # A waitForTaskToken task's TimeoutSeconds waits for something AWS does (the sandbox's
    # HyperPod), so it runs on simulated time too. Lambda tasks' timeouts stay real: a handler's
    # own work takes real seconds.
    def _wait_for_task_token_timeout(self: Any, timeout_seconds: int, callback_endpoint: Any) -> Any:
        return callback_endpoint.wait(timeout=clock.real_seconds(timeout_seconds))

    patch(StateTaskServiceCallback, "_wait_for_task_token_timeout", _wait_for_task_token_timeout)
    # RetrierDecl sleeps with the module-global `time.sleep(interval_seconds)`.
    patch(
        retrier_decl,
        "time",
        types.SimpleNamespace(
            sleep=lambda seconds: time.sleep(clock.real_seconds(seconds)),
            time=time.time,
            monotonic=time.monotonic,
        ),
    )


# --------------------------------------------------------------------------- Step Functions fixes

# Step Functions names aws-sdk errors "<Service>.<ErrorCode>" with the SDK's PascalCase service id;
# moto only knows dynamodb and sfn and otherwise uses the lower-case API name ("eks.Resource...").
_SDK_ERROR_SERVICE_NAMES = {
    "eks": "Eks",
    "sagemaker": "SageMaker",
    "ec2": "Ec2",
    "iam": "Iam",
    "s3": "S3",
    "lambda": "Lambda",
    "servicequotas": "ServiceQuotas",
    "sts": "Sts",
    "ssm": "Ssm",
    "events": "EventBridge",
    "cloudwatch": "CloudWatch",
    "logs": "CloudWatchLogs",
}


@once
def install_sfn_fixes() -> None:
    """Fix the moto 5.2.5 Step Functions interpreter where it differs from AWS."""
    import botocore.session
    from botocore import xform_name
    from moto.stepfunctions.parser import quotas
    from moto.stepfunctions.parser.asl.component.common.error_name import (
        error_equals_decl as error_equals,
    )
    from moto.stepfunctions.parser.asl.component.common.error_name import (
        states_error_name,
        states_error_name_type,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import (
        state_task_service as sts,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import (
        state_task_service_aws_sdk as aws_sdk,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import (
        state_task_service_callback as callback,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import (
        state_task_service_sfn as sfn_task,
    )
    from moto.stepfunctions.parser.models import StepFunctionsParserBackend
    from moto.stepfunctions.parser.utils import TMP_THREADS

    # ".sync" tasks (child executions) look at their child every 0.5 real seconds, which at a
    # time scale of 0.05 is 10 simulated seconds after it ended; Step Functions itself is told
    # at once. Look every 20 ms.
    patch(callback, "_DELAY_SECONDS_SYNC_CONDITION_CHECK", 0.02)
    _install_shared_clients()

    session = botocore.session.get_session()
    op_models: dict[tuple[str, str], Any] = {}

    def operation_model(service: str, action_snake: str) -> Any:
        key = (service, action_snake)
        if key not in op_models:
            try:
                model = session.get_service_model(service)
                name = next(op for op in model.operation_names if xform_name(op) == action_snake)
                op_models[key] = model.operation_model(name)
            except Exception:
                op_models[key] = None
        return op_models[key]

    # getmoto/moto#10076: moto stubs out LocalStack's normalisation, so PascalCase ASL parameters
    # ("Name", "StateMachineArn") never reach boto3's casing and responses are not re-cased to
    # PascalCase. Breaks states:startExecution.sync and aws-sdk:eks:* among others.
    def _operation(task: Any, boto_service_name: Any, service_action_name: Any) -> Any:
        return operation_model(
            task._get_boto_service_name(boto_service_name), task._get_boto_service_action(service_action_name)
        )

    def _normalise_parameters(
        self: Any, parameters: Any, boto_service_name: Any = None, service_action_name: Any = None
    ) -> None:
        op = _operation(self, boto_service_name, service_action_name)
        if op is not None and op.input_shape is not None:
            self._to_boto_request(parameters, op.input_shape)

    def _normalise_response(
        self: Any, response: Any, boto_service_name: Any = None, service_action_name: Any = None
    ) -> None:
        op = _operation(self, boto_service_name, service_action_name)
        if op is not None and op.output_shape is not None:
            self._from_boto_response(response, op.output_shape)

    patch(sts.StateTaskService, "_normalise_parameters", _normalise_parameters)
    patch(sts.StateTaskService, "_normalise_response", _normalise_response)

    aws_sdk._SERVICE_ERROR_NAMES.update(_SDK_ERROR_SERVICE_NAMES)

    # The parser backend names every unnamed execution "None", so a second unnamed start returns
    # the first execution (same input) or fails with ExecutionAlreadyExists (other input).
    original_start = StepFunctionsParserBackend.start_execution

    started: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()  # by ARN, for _child_first

    def start_execution(
        self: Any, state_machine_arn: str, name: Any = None, execution_input: Any = None, trace_header: Any = None
    ) -> Any:
        # moto's interpreter keeps every thread it starts (TMP_THREADS, a module list) for good: a sandbox left
        # running for days would hold each execution's threads. Those that ended are let go at the next start.
        TMP_THREADS[:] = [thread for thread in TMP_THREADS if thread.is_alive()]
        run = original_start(self, state_machine_arn, name or str(uuid.uuid4()), execution_input, trace_header)
        started[run.exec_arn] = run
        return run

    patch(StepFunctionsParserBackend, "start_execution", start_execution)
    task = sfn_task.StateTaskServiceSfn
    for builder in ("_build_sync_resolver", "_build_sync2_resolver"):
        patch(task, builder, _child_first(getattr(task, builder), started))

    _install_terminal_errors(error_equals, states_error_name, states_error_name_type, quotas)
    _install_lambda_error_names()
    _install_status_change_events()
    _install_stop_of_a_starting_execution()
    _install_jsonata_if_available()


def _child_first(build: Any, started: weakref.WeakValueDictionary[str, Any]) -> Any:
    """A ``.sync`` task's resolver that looks at its child execution itself before asking DescribeExecution.

    moto's resolver calls DescribeExecution through a whole boto3 call at each look (every 20 ms): a third of the
    sandbox's CPU while a cluster provisions, its parent workflow waiting on one child after another. Step Functions
    "starts an execution of another state machine and waits for it to complete" ("Start a new AWS Step Functions
    state machine from a running execution", https://docs.aws.amazon.com/step-functions/latest/dg/connect-stepfunctions.html;
    the Run a Job (.sync) pattern, connect-to-resource.html#connect-sync): the parent moves on when the child ends,
    with no polling of its own. Here the resolver is called only once the child is no longer RUNNING, so the parent
    still reads DescribeExecution's answer, as moto builds it, and a child that fails still fails its parent."""
    from moto.stepfunctions.parser.api import ExecutionStatus

    def built(self: Any, env: Any, *args: Any, **kwargs: Any) -> Any:
        submitted = env.stack[-1] if env.stack else None
        arn = submitted.get("ExecutionArn") if isinstance(submitted, dict) else None
        resolve = build(self, env, *args, **kwargs)  # pops the submission, as before
        child = started.get(arn) if arn else None
        if resolve is None or child is None:
            return resolve

        def resolver() -> Any:
            return None if child.exec_status == ExecutionStatus.RUNNING else resolve()

        return resolver

    return built


def _install_shared_clients() -> None:
    """One boto3 client per region and service for the interpreter's Task states, as a Step Functions
    service keeps its connections: moto builds a new client for every Lambda invoke and aws-sdk call
    (``boto_client_for``), and building one copies botocore's whole tree of event handlers, 14% of the
    sandbox process's time in a profile of a provision. moto gives each the same fixed keys and
    configuration whatever the state's credentials, so the clients it would build for one region and
    service are interchangeable. botocore's clients are thread-safe ("Low-level clients are thread safe",
    boto3's guide, Multithreading or multiprocessing with clients); the pool holds as many connections
    as the executions running at once may use."""
    import sys

    import boto3
    from botocore.config import Config
    from moto.core.models import botocore_stubber
    from moto.settings import moto_server_port
    from moto.stepfunctions.parser.asl.component.common.timeouts.timeout import TimeoutSeconds
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils  # noqa: F401
    from moto.stepfunctions.parser.asl.utils import boto_client

    built = boto_client.boto_client_for
    clients: dict[tuple[str, str, bool, str], Any] = {}
    lock = threading.Lock()

    def shared_client(region: str, service: str, state_credentials: Any = None) -> Any:
        intercepting = bool(botocore_stubber.enabled)
        key = (region, service, intercepting, "" if intercepting else str(moto_server_port()))
        with lock:
            client = clients.get(key)
            if client is None:
                endpoint = {} if intercepting else {"endpoint_url": f"http://localhost:{key[3]}"}
                client = clients[key] = boto3.client(
                    service,
                    region_name=region,
                    aws_access_key_id="ak",
                    aws_secret_access_key="sk",
                    config=Config(
                        parameter_validation=False,
                        retries={"max_attempts": 0, "total_max_attempts": 1},
                        connect_timeout=TimeoutSeconds.DEFAULT_TIMEOUT_SECONDS,
                        read_timeout=TimeoutSeconds.DEFAULT_TIMEOUT_SECONDS,
                        max_pool_connections=64,
                    ),
                    **endpoint,
                )
            return client

    shared_client.__wrapped__ = built  # type: ignore[attr-defined]
    for module in list(sys.modules.values()):  # every module that imported the name, and the name itself
        named = module is not None and module.__name__.startswith("moto.stepfunctions")
        if named and getattr(module, "boto_client_for", None) is built:
            patch(module, "boto_client_for", shared_client)


def _install_stop_of_a_starting_execution() -> None:
    """StopExecution right after StartExecution stops the execution, as Step Functions does: "Stops an execution"
    of a Standard state machine, whatever it is doing (https://docs.aws.amazon.com/step-functions/latest/apireference/
    API_StopExecution.html; its errors are ExecutionDoesNotExist, InvalidArn and ValidationException, none for an
    execution that has just started). moto's worker builds its environment on its own thread after StartExecution
    answers; a stop that came first met ``env`` None and failed with an AttributeError (a cancel seconds after a
    start, and 1 run in 4 of the workflow runner's contract test)."""
    from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

    original = ExecutionWorker.stop

    def stop(self: Any, stop_date: Any, error: Any, cause: Any) -> Any:
        deadline = time.monotonic() + 5
        while self.env is None and time.monotonic() < deadline:
            time.sleep(0.005)
        return original(self, stop_date, error, cause)

    patch(ExecutionWorker, "stop", stop)


def _install_status_change_events() -> None:
    """Step Functions puts a "Step Functions Execution Status Change" event on the default bus when an execution
    ends (https://docs.aws.amazon.com/step-functions/latest/dg/cw-events.html); moto puts none, so an execution
    that failed past its Catch (States.DataLimitExceeded, States.Runtime) left its operation RUNNING here."""
    from moto.stepfunctions.parser.backend import execution as backend

    from sandbox.aws.eventbridge import put_event

    original = backend.BaseExecutionWorkerCommunication.terminated

    def terminated(self: Any) -> None:
        original(self)
        run = self.execution
        status = getattr(run.exec_status, "value", run.exec_status)

        def millis(when: Any) -> int | None:
            return int(when.timestamp() * 1000) if when is not None else None

        detail = {
            "executionArn": run.exec_arn,
            "stateMachineArn": run.state_machine_arn,
            "name": run.name,
            "status": status,
            "startDate": millis(run.start_date),
            "stopDate": millis(run.stop_date),
            "input": run.execution_input,
            "output": json.dumps(run.output) if run.output is not None else None,
            "error": run.error,
            "cause": run.cause,
        }
        try:
            put_event(
                run.account_id,
                run.region_name,
                "aws.states",
                "Step Functions Execution Status Change",
                detail,
                [run.exec_arn],
            )
        except Exception:  # the sandbox is stopping: nobody listens
            return

    patch(backend.BaseExecutionWorkerCommunication, "terminated", terminated)


def _install_lambda_error_names() -> None:
    """The error a Lambda Task fails with, named as Step Functions names it
    (https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html): "Lambda errors are
    reported as Lambda.ErrorName" (moto names every Invoke error "Exception", so no Retry on
    Lambda.TooManyRequestsException or Lambda.ServiceException ever matched); "Unhandled errors in Lambda are
    reported as Lambda.Unknown ... These include out-of-memory errors and function timeouts" (an environment
    that died or timed out, which moto named by Lambda's errorType). An error the function's code raised keeps
    its errorType as its name (RetryableError)."""
    from botocore.exceptions import ClientError
    from moto.stepfunctions.parser.asl.component.common.error_name.custom_error_name import CustomErrorName
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service.state_task_service_lambda import (
        StateTaskServiceLambda,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.state_task_lambda import StateTaskLambda

    from sandbox.lambda_env.faults import PLATFORM_ERROR_TYPES

    def aws_name(ex: Exception) -> str | None:
        if isinstance(ex, ClientError):
            return f"Lambda.{ex.response['Error']['Code']}"
        if isinstance(ex, lambda_eval_utils.LambdaFunctionErrorException):
            try:
                error_type = json.loads(ex.payload).get("errorType")
            except (ValueError, AttributeError):
                return None
            return "Lambda.Unknown" if error_type in PLATFORM_ERROR_TYPES else None
        return None

    def renamed(original: Any) -> Any:
        def _from_error(self: Any, env: Any, ex: Exception) -> Any:
            event = original(self, env, ex)
            name = aws_name(ex)
            if name is not None:
                event.error_name = CustomErrorName(name)
                for details in (event.event_details or {}).values():
                    if isinstance(details, dict) and "error" in details:
                        details["error"] = name
            return event

        return _from_error

    patch(StateTaskLambda, "_from_error", renamed(StateTaskLambda._from_error))
    patch(StateTaskServiceLambda, "_from_error", renamed(StateTaskServiceLambda._from_error))


def _install_terminal_errors(error_equals: Any, states_error_name: Any, names: Any, quotas: Any) -> None:
    """Step Functions' payload quota and its terminal errors, as AWS documents them.

    "States.ALL ... can't catch the States.DataLimitExceeded terminal error or Runtime error types"
    (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html#error-handling-error-representation):
    moto's States.ALL matched both, so a workflow whose Catch recorded the failure passed in the
    sandbox while on AWS the execution fails with nothing recorded. A catcher that names either error
    explicitly still matches it.

    The quota is "256 KiB of data as a UTF-8 encoded string" for a task's result, a state's input or
    output and an execution's input (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html);
    the API reference gives the same fields "Maximum length of 262144" bytes, so exactly 262144 fits
    (moto refused it: it compares with ``<``).
    """
    uncatchable_by_all = {
        names.StatesErrorNameType.StatesStatesDataLimitExceeded,
        names.StatesErrorNameType.StatesRuntime,
    }
    all_errors = states_error_name.StatesErrorName(typ=names.StatesErrorNameType.StatesALL)
    original_eval = error_equals.ErrorEqualsDecl._eval_body

    def _eval_body(self: Any, env: Any) -> None:
        error_name = env.stack[-1]
        terminal = isinstance(error_name, states_error_name.StatesErrorName) and error_name.typ in uncatchable_by_all
        if terminal and all_errors in self.error_names and error_name not in self.error_names:
            env.stack.pop()
            env.stack.append(False)
            return
        original_eval(self, env)

    error_equals.ErrorEqualsDecl._eval_body = _eval_body
    quotas.MAX_STATE_SIZE_UTF8_BYTES = 262144 + 1  # is_within_size_quota compares with "<"


def _install_jsonata_if_available() -> None:
    # moto ships the JSONata hook but no engine (LocalStack uses a JVM). The pure-Python port
    # (pip: jsonata-python) is optional: only QueryLanguage=JSONata and `$var` reads need it.
    try:
        import jsonata as jsonata_py
        from moto.stepfunctions.parser.asl.jsonata import jsonata as moto_jsonata
    except ImportError:
        return

    def _eval(expression: str) -> Any:
        out = jsonata_py.Jsonata(expression).evaluate(None)
        return json.loads(json.dumps(out, default=list)) if out is not None else None

    moto_jsonata._eval_jsonata = _eval
