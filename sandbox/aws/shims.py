"""Monkeypatches that make moto run Launchpod's Lambdas and state machines like AWS does, only faster.

Three groups, each applied once per process by ``install_*`` (re-running is harmless):

* **In-process Lambda** - moto's Lambda backend runs functions in Docker. Every moto path that invokes
  a function (the Invoke API, Step Functions Tasks, event-source mappings, S3 notifications) ends in
  ``LambdaFunction._invoke_lambda``, so replacing that one method runs the function's ``Handler``
  string ("pkg.module.func", the same string the CDK app deploys) in this process with a fake context.
  Keep moto's default ``lambda.use_docker=True`` config: with ``False`` moto swaps in a backend that
  echoes the payload and never reaches this hook.
* **Step Functions time scaling** - Wait states and Retry back-off last ``time_scale`` real seconds per
  ASL second (see ``sandbox.aws.clock``).
* **Step Functions interpreter fixes** for moto 5.2.5: request/response casing normalisation
  (getmoto/moto#10076), unique names for unnamed executions, and AWS-style aws-sdk error names.

All hooks touch private moto internals; moto is pinned exactly for this reason. Background and the
experiments behind each hook: ``../shared/reference/sandbox-feasibility.md`` sections 1.2-1.5.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import threading
import time
import traceback
import types
import uuid
from collections.abc import Callable
from typing import Any

from moto.awslambda.models import LambdaFunction

from sandbox.aws import clock
from sandbox.aws.iam.gate import CALLER
from sandbox.lambda_env.environments import FunctionConfig
from sandbox.lambda_env.runtime import InitError, load_handler

log = logging.getLogger("sandbox.aws.lambda")

#: Explicit handler overrides by function name, for tests that need a handler without a module path.
HANDLERS: dict[str, Callable[[Any, Any], Any]] = {}
#: Recent in-process invocations as (function_name, event), newest last, for assertions in tests.
INVOCATIONS: collections.deque[tuple[str, Any]] = collections.deque(maxlen=1000)

_installed: set[str] = set()
_install_lock = threading.Lock()


# --------------------------------------------------------------------------- in-process Lambda


class FakeLambdaContext:
    """The attributes of the Lambda context object that powertools (Logger, Metrics, idempotency) reads."""

    def __init__(self, fn: LambdaFunction) -> None:
        self.function_name = fn.function_name
        self.function_version = str(fn.version)
        self.invoked_function_arn = fn.function_arn
        self.memory_limit_in_mb = int(fn.memory_size or 128)
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{fn.function_name}"
        self.log_stream_name = f"sandbox/[{fn.version}]{uuid.uuid4().hex}"
        self.identity = None
        self.client_context = None
        # The handler runs in real time, so its deadline is the real configured timeout.
        self._deadline = time.monotonic() + float(fn.timeout or 3)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def _resolve_handler(fn: LambdaFunction) -> Callable[[Any, Any], Any]:
    if fn.function_name in HANDLERS:
        return HANDLERS[fn.function_name]
    return load_handler(fn.handler or "")  # type: ignore[no-any-return]


_env_lock = threading.Lock()
_env_applied: set[str] = set()
_env_owner: dict[str, str] = {}


def _apply_function_environment(fn: LambdaFunction) -> None:
    """Copy the function's Environment.Variables into os.environ, once per function name.

    All functions share this process's environment. Setting and restoring it per invocation would
    need a lock held for the whole handler run, which serialises every Lambda (Map concurrency is lost
    and TimeoutSeconds turns into spurious States.Timeout). So values are applied once and conflicts
    between functions are logged: functions should agree on shared configuration keys.
    """
    if fn.function_name in _env_applied:
        return
    with _env_lock:
        for key, value in (fn.environment_vars or {}).items():
            owner = _env_owner.get(key)
            if owner and owner != fn.function_name and os.environ.get(key) != str(value):
                log.warning("env var %s differs between Lambda functions %s and %s", key, owner, fn.function_name)
            os.environ[key] = str(value)
            _env_owner.setdefault(key, fn.function_name)
        _env_applied.add(fn.function_name)


def _error_payload(exc: BaseException, error_type: str | None = None) -> str:
    # Lambda's unhandled-error document; Step Functions takes errorType as the ASL error name, so
    # `raise RetryableError(...)` matches `"ErrorEquals": ["RetryableError"]`.
    return json.dumps(
        {
            "errorMessage": str(exc),
            "errorType": error_type or type(exc).__name__,
            "requestId": "",
            "stackTrace": traceback.format_exception(exc)[-5:],
        }
    )


_original_invoke = LambdaFunction.invoke

#: Runs a function in an execution environment of its own (sandbox.lambda_env): (its configuration
#: now, event) -> (payload, is function error). None runs handlers in this process (the unit-level tests).
_RUNNER: Callable[[FunctionConfig, Any], tuple[str, bool]] | None = None


def set_runner(runner: Callable[[FunctionConfig, Any], tuple[str, bool]] | None) -> None:
    global _RUNNER
    _RUNNER = runner


def _invoke_lambda_in_process(self: LambdaFunction, event: Any = None) -> tuple[str, bool, str]:
    runner = _RUNNER
    if runner is not None and self.function_name not in HANDLERS:
        if isinstance(event, str | bytes):
            event = json.loads(event or "{}")
        INVOCATIONS.append((self.function_name, event))
        payload, failed = runner(FunctionConfig.of(self), event)
        return payload, failed, ""
    try:
        handler = _resolve_handler(self)
    except InitError as exc:
        # Never fall back to moto's Docker runner: the sandbox has no Docker, and Lambda itself
        # reports an unloadable handler as a function error.
        log.warning("Lambda %s: %s", self.function_name, exc)
        return _error_payload(exc, exc.error_type), True, ""
    if isinstance(event, str | bytes):  # moto passes the string "{}" for an empty body
        event = json.loads(event or "{}")
    INVOCATIONS.append((self.function_name, event))
    # Lambda gives each concurrent invocation its own execution environment ("each instance of your
    # execution environment can handle only one request at a time", Lambda developer guide, "Understanding
    # Lambda function scaling"); here a function has one
    # (one copy of its modules: powertools' router context, cached clients), so its invocations take
    # turns, as a function with reserved concurrency 1 would. Sharing it let one request's context
    # replace another's.
    with _environment_lock(self.function_name):
        _apply_function_environment(self)
        # The handler's AWS calls are made as this function's role (sandbox.aws.iam).
        caller = CALLER.set(self.function_name)
        try:
            result = handler(event, FakeLambdaContext(self))
            return json.dumps(result, default=str), False, ""
        except Exception as exc:
            log.info("Lambda %s raised %s: %s", self.function_name, type(exc).__name__, exc)
            return _error_payload(exc), True, ""
        finally:
            CALLER.reset(caller)


_environments: dict[str, threading.RLock] = {}
_environments_guard = threading.Lock()


def _environment_lock(function_name: str) -> threading.RLock:
    with _environments_guard:
        return _environments.setdefault(function_name, threading.RLock())


def _invoke_with_unhandled_marker(self: LambdaFunction, body: str, request_headers: Any, response_headers: Any):
    if (request_headers.get("X-Amz-Invocation-Type") or request_headers.get("x-amz-invocation-type")) == "Event":
        # moto runs an Event invocation before answering; Lambda queues it and answers 202 at once ("the
        # Invoke API returns ... without waiting", Lambda developer guide, "Invoking a Lambda function
        # asynchronously"), so a function that invokes itself does not wait for, or nest in, the next one.
        threading.Thread(
            target=_original_invoke,
            args=(self, body, request_headers, {}),
            name=f"lambda-event-{self.function_name}",
            daemon=True,
        ).start()
        return b""
    # moto marks every error "Handled"; Lambda reports an exception escaping the handler as "Unhandled".
    result = _original_invoke(self, body, request_headers, response_headers)
    if response_headers.get("x-amz-function-error") == "Handled":
        response_headers["x-amz-function-error"] = "Unhandled"
    return result


def install_in_process_lambda() -> None:
    """Run Lambda handlers in this process instead of Docker."""
    with _install_lock:
        if "lambda" in _installed:
            return
        LambdaFunction._invoke_lambda = _invoke_lambda_in_process
        LambdaFunction.invoke = _invoke_with_unhandled_marker
        _installed.add("lambda")


# --------------------------------------------------------------------------- moto's backend lookup


def install_backend_fast_path() -> None:
    """Look a known account's backends up without moto's global lock.

    Every moto request looks its backend up several times, and each look takes one lock shared by
    all services. With the sandbox's threads (executions, API, Kubernetes emulators) the lock waits
    alone cost ~10 ms per lookup, about a second per REST call. The lock guards creating an
    account's backends; once one exists, reading the dict needs no lock.
    """
    from moto.core.base_backend import BackendDict

    with _install_lock:
        if "backend-fast-path" in _installed:
            return
        original = BackendDict.__getitem__

        def __getitem__(self: BackendDict, account_id: str) -> Any:
            found = dict.get(self, account_id)
            return found if found is not None else original(self, account_id)

        BackendDict.__getitem__ = __getitem__
        _installed.add("backend-fast-path")


# --------------------------------------------------------------------------- DynamoDB atomicity

_DYNAMODB_ITEM_CALLS = (
    "get_item",
    "put_item",
    "update_item",
    "delete_item",
    "query",
    "scan",
    "batch_get_item",
    "batch_write_item",
    "transact_get_items",
    "transact_write_items",
)


def install_dynamodb_atomicity() -> None:
    """Make each DynamoDB call atomic, as DynamoDB is.

    moto applies an UpdateExpression's actions to the stored item one at a time, so a GetItem in
    another thread can see an operation already FAILED but without its message yet. One re-entrant
    lock around the item calls gives readers whole items (the stream's Lambda runs inside the write,
    in the same thread, so the lock must be re-entrant). The lock also spans the response: moto's
    GetItem hands the stored item itself to its serializer, which walked a map another thread's
    UpdateItem was changing ("dictionary changed size during iteration", a 502 in a full CI run).
    """
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.responses import DynamoHandler

    with _install_lock:
        if "dynamodb-atomic" in _installed:
            return
        lock = threading.RLock()

        def guarded(original: Callable[..., Any]) -> Callable[..., Any]:
            def call(self: Any, *args: Any, **kwargs: Any) -> Any:
                with lock:
                    return original(self, *args, **kwargs)

            return call

        for name in _DYNAMODB_ITEM_CALLS:
            setattr(DynamoDBBackend, name, guarded(getattr(DynamoDBBackend, name)))
        DynamoHandler.call_action = guarded(DynamoHandler.call_action)  # type: ignore[method-assign]
        _installed.add("dynamodb-atomic")


# --------------------------------------------------------------------------- Step Functions time


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

    with _install_lock:
        if "sfn-time" in _installed:
            return

        def _eval_body(self: Any, env: Any) -> None:
            seconds = self._get_wait_seconds(env=env)
            if seconds > 0:
                # moto's own _wait_interval re-waits `seconds - int(elapsed)` whenever the event
                # returns early, so it cannot take fractional seconds. Waiting on the program-state
                # event keeps StopExecution able to interrupt the Wait.
                env.program_state_event.wait(clock.real_seconds(seconds))

        WaitFunction._eval_body = _eval_body

        # A waitForTaskToken task's TimeoutSeconds waits for something AWS does (the sandbox's
        # HyperPod), so it runs on simulated time too. Lambda tasks' timeouts stay real: a handler's
        # own work takes real seconds.
        def _wait_for_task_token_timeout(self: Any, timeout_seconds: int, callback_endpoint: Any) -> Any:
            return callback_endpoint.wait(timeout=clock.real_seconds(timeout_seconds))

        StateTaskServiceCallback._wait_for_task_token_timeout = _wait_for_task_token_timeout
        # RetrierDecl sleeps with the module-global `time.sleep(interval_seconds)`.
        retrier_decl.time = types.SimpleNamespace(
            sleep=lambda seconds: time.sleep(clock.real_seconds(seconds)),
            time=time.time,
            monotonic=time.monotonic,
        )
        _installed.add("sfn-time")


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
    from moto.stepfunctions.parser.models import StepFunctionsParserBackend

    with _install_lock:
        if "sfn-fixes" in _installed:
            return

        # ".sync" tasks (child executions) look at their child every 0.5 real seconds, which at a
        # time scale of 0.05 is 10 simulated seconds after it ended; Step Functions itself is told
        # at once. Look every 20 ms.
        callback._DELAY_SECONDS_SYNC_CONDITION_CHECK = 0.02

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
        def _normalise_parameters(self, parameters, boto_service_name=None, service_action_name=None):
            op = operation_model(
                self._get_boto_service_name(boto_service_name),
                self._get_boto_service_action(service_action_name),
            )
            if op is not None and op.input_shape is not None:
                self._to_boto_request(parameters, op.input_shape)

        def _normalise_response(self, response, boto_service_name=None, service_action_name=None):
            op = operation_model(
                self._get_boto_service_name(boto_service_name),
                self._get_boto_service_action(service_action_name),
            )
            if op is not None and op.output_shape is not None:
                self._from_boto_response(response, op.output_shape)

        sts.StateTaskService._normalise_parameters = _normalise_parameters
        sts.StateTaskService._normalise_response = _normalise_response

        aws_sdk._SERVICE_ERROR_NAMES.update(_SDK_ERROR_SERVICE_NAMES)

        # The parser backend names every unnamed execution "None", so a second unnamed start returns
        # the first execution (same input) or fails with ExecutionAlreadyExists (other input).
        original_start = StepFunctionsParserBackend.start_execution

        def start_execution(self, state_machine_arn, name=None, execution_input=None, trace_header=None):
            return original_start(self, state_machine_arn, name or str(uuid.uuid4()), execution_input, trace_header)

        StepFunctionsParserBackend.start_execution = start_execution

        _install_terminal_errors(error_equals, states_error_name, states_error_name_type, quotas)
        _install_jsonata_if_available()
        _installed.add("sfn-fixes")


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


# --------------------------------------------------------------------------- DynamoDB stream delivery


_STREAM_BACKLOG = [0]  # batches of stream records written and not yet delivered


def stream_backlog() -> int:
    """How many batches of DynamoDB stream records still wait for (or are in) their Lambda invocation."""
    return _STREAM_BACKLOG[0]


def install_async_stream_delivery() -> None:
    """Deliver DynamoDB stream records to their Lambda after the write, in order, as Lambda's event
    source mapping does (it polls the stream's shards and invokes with batches, "How Lambda processes
    records from DynamoDB streams", Lambda developer guide). moto invokes inside the write, holding
    the table's lock: a function in an execution environment of its own that reads the table would
    wait for a write that waits for it. With handlers in this process the original order stands."""
    import queue

    from moto.awslambda.models import LambdaBackend

    with _install_lock:
        if "stream-async" in _installed:
            return
        original = LambdaBackend.send_dynamodb_items
        queues: dict[str, queue.SimpleQueue[tuple[Any, list[Any], str]]] = {}
        guard = threading.Lock()

        def deliver(pending: queue.SimpleQueue[tuple[Any, list[Any], str]], arn: str) -> None:
            while True:
                backend, items, source = pending.get()
                try:
                    original(backend, arn, items, source)
                except Exception:
                    log.warning("stream delivery to %s failed", arn, exc_info=True)
                finally:
                    with guard:
                        _STREAM_BACKLOG[0] -= 1

        def send_dynamodb_items(self: LambdaBackend, function_arn: str, items: list[Any], source: str) -> Any:
            if _RUNNER is None:
                return original(self, function_arn, items, source)
            with guard:
                _STREAM_BACKLOG[0] += 1
                pending = queues.get(function_arn)
                if pending is None:
                    pending = queues[function_arn] = queue.SimpleQueue()
                    threading.Thread(
                        target=deliver, args=(pending, function_arn), name="stream-delivery", daemon=True
                    ).start()
            pending.put((self, list(items), source))
            return "queued"  # moto clears the shard's pending records on a truthy answer

        LambdaBackend.send_dynamodb_items = send_dynamodb_items  # type: ignore[method-assign]
        _installed.add("stream-async")


# --------------------------------------------------------------------------- moto server routing


def install_server_management_api_routing() -> None:
    """Route API Gateway Management API calls with a stage in the path to moto's management API.

    moto's server takes a request signed for ``execute-api`` as IoT unless its path starts with
    ``/@connections``, but a WebSocket API's callback URL is ``https://{api-id}.execute-api.{region}
    .amazonaws.com/{stage}/@connections/{connection_id}`` (API Gateway developer guide, "Use
    @connections commands in your backend service"), which functions in execution environments send
    to the server. moto's server-mode route for the staged path does not match either (its regex
    becomes the Werkzeug rule ``/<stage_name>+@connections/...``), so the stage is taken off the path
    as API Gateway takes it off before the management API sees the call."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    with _install_lock:
        if "server-management-api" in _installed:
            return
        original = DomainDispatcherApplication.infer_service_region_host

        def infer_service_region_host(self: Any, environ: dict[str, Any], path: str) -> str | None:
            auth = environ.get("HTTP_AUTHORIZATION") or ""
            path_info = environ.get("PATH_INFO", "")
            if "/execute-api/aws4_request" in auth and "/@connections/" in path_info:
                region = auth.split("Credential=", 1)[-1].split("/")[2]
                environ["PATH_INFO"] = path_info[path_info.index("/@connections/") :]
                for key in ("RAW_URI", "REQUEST_URI"):  # moto reads the action from the raw path
                    raw = environ.get(key) or ""
                    if "/@connections/" in raw:
                        environ[key] = raw[raw.index("/@connections/") :]
                return f"execute-api.{region}.amazonaws.com"
            return original(self, environ, path)

        DomainDispatcherApplication.infer_service_region_host = infer_service_region_host  # type: ignore[method-assign]
        _installed.add("server-management-api")
