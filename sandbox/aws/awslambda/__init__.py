"""Lambda, in process: moto's Lambda backend runs functions in Docker. Every moto path that invokes a
function (the Invoke API, Step Functions Tasks, event-source mappings, S3 notifications) ends in
``LambdaFunction._invoke_lambda``, so replacing that one method runs the function's ``Handler`` string
("pkg.module.func", the same string the CDK app deploys) in this process with a fake context, or in an
execution environment of its own when the sandbox sets a runner (``set_runner``). Keep moto's default
``lambda.use_docker=True`` config: with ``False`` moto swaps in a backend that echoes the payload and never
reaches this hook. DynamoDB stream records reach their function after the write (``streams``).

The hook touches private moto internals; moto is pinned exactly for this reason. Background and the
experiments behind it: ``../shared/reference/sandbox-feasibility.md`` sections 1.2-1.5.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from moto.awslambda.models import LambdaFunction
from moto.core.exceptions import JsonRESTError

from sandbox.aws.core import once, patch
from sandbox.aws.iam.gate import CALLER
from sandbox.aws.state import STATE
from sandbox.lambda_env import faults
from sandbox.lambda_env.environments import FunctionConfig
from sandbox.lambda_env.faults import FUNCTION_FAULTS
from sandbox.lambda_env.runtime import InitError, error_payload, load_handler

log = logging.getLogger("sandbox.aws.lambda")


class Runner(Protocol):
    """Runs one invocation in an execution environment: (configuration, event, fault to inject) -> (payload,
    whether it is a function error)."""

    def __call__(self, config: FunctionConfig, event: Any, fault: str | None = None) -> tuple[str, bool]: ...


@dataclass
class LambdaState:
    """The functions' in-process invocations, environments and runner."""

    handlers: dict[str, Callable[[Any, Any], Any]] = field(
        default_factory=dict
    )  # handler overrides by function name (tests)
    invocations: collections.deque[tuple[str, Any]] = field(
        default_factory=lambda: collections.deque(maxlen=1000)
    )  # (function, event), newest last
    env_applied: set[str] = field(default_factory=set)  # functions whose Environment is in os.environ
    env_owner: dict[str, str] = field(default_factory=dict)  # environment variable -> the function that set it first
    environments: dict[str, threading.RLock] = field(default_factory=dict)  # function -> the lock its invocations take
    runner: Runner | None = None  # see set_runner


def _state() -> LambdaState:
    return STATE.of(LambdaState)


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
    if fn.function_name in _state().handlers:
        return _state().handlers[fn.function_name]
    return load_handler(fn.handler or "")  # type: ignore[no-any-return]


_env_lock = threading.Lock()


def _apply_function_environment(fn: LambdaFunction) -> None:
    """Copy the function's Environment.Variables into os.environ, once per function name.

    All functions share this process's environment. Setting and restoring it per invocation would
    need a lock held for the whole handler run, which serialises every Lambda (Map concurrency is lost
    and TimeoutSeconds turns into spurious States.Timeout). So values are applied once and conflicts
    between functions are logged: functions should agree on shared configuration keys.
    """
    if fn.function_name in _state().env_applied:
        return
    with _env_lock:
        for key, value in (fn.environment_vars or {}).items():
            owner = _state().env_owner.get(key)
            if owner and owner != fn.function_name and os.environ.get(key) != str(value):
                log.warning("env var %s differs between Lambda functions %s and %s", key, owner, fn.function_name)
            os.environ[key] = str(value)
            _state().env_owner.setdefault(key, fn.function_name)
        _state().env_applied.add(fn.function_name)


_original_invoke = LambdaFunction.invoke


def set_runner(runner: Runner | None) -> None:
    """Run each function in an execution environment of its own (sandbox.lambda_env): (its configuration
    now, event) -> (payload, is function error). None runs handlers in this process (the unit-level tests)."""
    _state().runner = runner


# The fault (sandbox.lambda_env.faults) Invoke drew for the invocation this thread is running.
_pending_fault = threading.local()


def _invoke_lambda_in_process(self: LambdaFunction, event: Any = None) -> tuple[str, bool, str]:
    fault: str | None = getattr(_pending_fault, "kind", None)
    _pending_fault.kind = None
    runner = _state().runner
    if runner is not None and self.function_name not in _state().handlers:
        if isinstance(event, str | bytes):
            event = json.loads(event or "{}")
        _state().invocations.append((self.function_name, event))
        payload, failed = runner(FunctionConfig.of(self), event, fault)
        return payload, failed, ""
    payload, failed, logs = _run_in_process(self, event)
    if fault == "stateTooLarge" and not failed:
        return faults.padded(payload), False, logs
    if fault in faults.ERROR_TYPES:
        # In this process nothing can be killed: the handler has run to its end (its changes made) and
        # its answer is lost, as when the environment dies after its last call.
        return faults.failure(fault, str(uuid.uuid4()), float(self.timeout or 3)), True, logs
    return payload, failed, logs


def _run_in_process(self: LambdaFunction, event: Any) -> tuple[str, bool, str]:
    try:
        handler = _resolve_handler(self)
    except InitError as exc:
        # Never fall back to moto's Docker runner: the sandbox has no Docker, and Lambda itself
        # reports an unloadable handler as a function error.
        log.warning("Lambda %s: %s", self.function_name, exc)
        return error_payload(exc, exc.error_type), True, ""
    if isinstance(event, str | bytes):  # moto passes the string "{}" for an empty body
        event = json.loads(event or "{}")
    _state().invocations.append((self.function_name, event))
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
            return error_payload(exc), True, ""
        finally:
            CALLER.reset(caller)


_environments_guard = threading.Lock()


def _environment_lock(function_name: str) -> threading.RLock:
    with _environments_guard:
        return _state().environments.setdefault(function_name, threading.RLock())


def _invoke_with_unhandled_marker(self: LambdaFunction, body: str, request_headers: Any, response_headers: Any) -> Any:
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
    fault = FUNCTION_FAULTS.take(self.function_name)
    if fault == "throttle":
        # https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html: TooManyRequestsException, HTTP 429
        raise _InvokeError("TooManyRequestsException", "Rate Exceeded.", 429)
    if fault == "serviceError":
        raise _InvokeError("ServiceException", "The AWS Lambda service encountered an internal error.", 500)
    # moto runs the function on this thread, in _invoke_lambda_in_process, which takes the fault.
    _pending_fault.kind = fault
    try:
        result = _original_invoke(self, body, request_headers, response_headers)
    finally:
        _pending_fault.kind = None
    # moto marks every error "Handled"; Lambda reports an exception escaping the handler as "Unhandled".
    if response_headers.get("x-amz-function-error") == "Handled":
        response_headers["x-amz-function-error"] = "Unhandled"
    return result


class _InvokeError(JsonRESTError):
    """An error of the Invoke API itself (the function did not run)."""

    def __init__(self, error: str, message: str, status: int) -> None:
        super().__init__(error, message)
        self.code = status


@once
def install_in_process_lambda() -> None:
    """Run Lambda handlers in this process instead of Docker."""
    patch(LambdaFunction, "_invoke_lambda", _invoke_lambda_in_process)
    patch(LambdaFunction, "invoke", _invoke_with_unhandled_marker)


def invocations() -> collections.deque[tuple[str, Any]]:
    """Recent invocations as (function_name, event), newest last, for assertions in tests."""
    return _state().invocations


def runner() -> Runner | None:
    """The runner ``set_runner`` set (None: handlers run in this process)."""
    return _state().runner
