"""Lambda execution environments: each function runs in processes of its own, as Lambda runs it.

An environment is a process started on the function's first invocation (a cold start, recorded),
kept warm and reused, and recycled when it has been idle a while, when it timed out or when its
process died. A function has as many environments as it has invocations in flight ("each instance
of your execution environment can handle only one request at a time", Lambda developer guide,
"Understanding Lambda function scaling"), up to a small cap per function so two cores stay usable.

Processes are forked from a server that has already imported the layer's libraries (boto3, pydantic,
kubernetes, powertools) and parsed botocore's data files for the services the functions call
(sandbox.lambda_env.warm): what each environment imports itself, and pays for at its cold start, is the
function's own code. Nothing is shared once forked: every client, token and cache is the function's.
Given ``python`` (the runtime's interpreter) and a built ``package`` (packaging.built_package), each
environment is instead a new process of that interpreter importing everything from the package and
layer, as a Lambda cold start does (bench/api_cold_start.py measures the deployed package this way).

Limits enforced here, as Lambda enforces them:
- the function's timeout (the process is killed; "Task timed out after N seconds", errorType
  ``Sandbox.Timedout``, and the environment is not reused);
- the synchronous response's 6 MB ("Lambda quotas": "Invocation payload (request and response)
  6 MB each for synchronous"; errorType ``Function.ResponseSizeTooLarge``);
- the function's memory (an environment whose resident memory passes it is stopped, errorType
  ``Runtime.OutOfMemory``).
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import logging
import multiprocessing
import os
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from multiprocessing import spawn
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from sandbox.lambda_env import packaging, runtime
from sandbox.lambda_env.faults import failure as fault_payload
from sandbox.lambda_env.faults import padded

log = logging.getLogger("sandbox.lambda")

RESPONSE_LIMIT = 6 * 1024 * 1024  # Lambda quotas: 6 MB synchronous response
# Lambda keeps an idle environment for a while it does not document; the sandbox keeps one 5 minutes.
IDLE_SECONDS = 300.0
MAX_PER_FUNCTION = 3
# Layer libraries the fork server imports once, so environments do not import them again, and botocore's data
# files for the services the functions call, parsed once (sandbox.lambda_env.warm).
PRELOAD = ("boto3", "botocore.client", "pydantic", "aws_lambda_powertools", "kubernetes.client", "yaml", "jwt")
WARM = "sandbox.lambda_env.warm"


@dataclass(frozen=True)
class FunctionConfig:
    """A function's configuration as Lambda holds it when an invocation arrives."""

    name: str  # what its environments and cold starts are reported under
    arn: str
    handler: str
    role_arn: str
    timeout: int
    memory: int
    environment: dict[str, str]

    @property
    def deployed(self) -> str:
        """The name Lambda knows it by (the ARN's last part)."""
        return self.arn.rsplit(":", 1)[-1]

    @classmethod
    def of(cls, fn: Any) -> FunctionConfig:
        """From moto's LambdaFunction: what UpdateFunctionConfiguration last set."""
        return cls(
            name=fn.function_name,
            arn=fn.function_arn,
            handler=fn.handler,
            role_arn=fn.role,
            timeout=int(fn.timeout or 3),
            memory=int(fn.memory_size or 128),
            environment={k: str(v) for k, v in (fn.environment_vars or {}).items()},
        )


@dataclass
class _Environment:
    config: FunctionConfig
    process: Any
    conn: Connection
    started: float
    init_seconds: float = 0.0
    last_used: float = field(default_factory=time.monotonic)
    invocations: int = 0


@dataclass(frozen=True)
class ColdStart:
    function: str
    at: float
    init_seconds: float  # from asking for an environment to its runtime being ready
    reason: str
    handler_seconds: float = 0.0  # the init phase's import of the handler's module, as the runtime timed it


class Authorizes(Protocol):
    """What the environments ask of the sandbox's IAM (sandbox.aws.iam.gate.EnvironmentAuthorizer): decisions
    and the log of mutations."""

    def authorize(self, function: str, request: dict[str, Any]) -> tuple[str, int, str] | None: ...

    def succeeded(self, function: str, request: dict[str, Any]) -> None: ...


class Authorizer:
    """An IAM that allows every call and logs nothing (the environments' own tests)."""

    def authorize(self, function: str, request: dict[str, Any]) -> tuple[str, int, str] | None:
        return None

    def succeeded(self, function: str, request: dict[str, Any]) -> None:
        return None


def _without_main(get_preparation_data: Any) -> Any:
    """multiprocessing re-runs the parent's ``__main__`` in a started process so that its functions can
    be unpickled; an environment needs only ``runtime.main``, and must not run the sandbox's script."""

    def prepared(name: str) -> dict[str, Any]:
        data: dict[str, Any] = get_preparation_data(name)
        if name.startswith("lambda-"):
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    return prepared


if not getattr(spawn.get_preparation_data, "_lambda_env", False):
    spawn.get_preparation_data = _without_main(spawn.get_preparation_data)
    spawn.get_preparation_data._lambda_env = True  # type: ignore[attr-defined]


class ExecutionEnvironments:
    def __init__(
        self,
        *,
        aws_url: str,
        log_dir: Path,
        credentials: Any,
        authorizer: Authorizes,
        idle_seconds: float = IDLE_SECONDS,
        max_per_function: int = MAX_PER_FUNCTION,
        code_dir: Path = packaging.CODE_DIR,
        python: str | None = None,
        package: dict[str, Any] | None = None,
    ) -> None:
        self.aws_url = aws_url
        self.log_dir = log_dir
        self.credentials = credentials  # callable: role ARN, function name -> env vars of the role's keys
        self.authorizer = authorizer
        self.idle_seconds = idle_seconds
        self.max_per_function = max_per_function
        self._idle: dict[str, list[_Environment]] = collections.defaultdict(list)
        self._busy: collections.Counter[str] = collections.Counter()
        self._lock = threading.Condition()
        self._cold_starts: collections.deque[ColdStart] = collections.deque(maxlen=2000)
        self._started: set[str] = set()
        self._recycled: collections.Counter[str] = collections.Counter()
        self._stopped = False
        self._sequence = itertools.count(1)
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["sandbox.lambda_env.runtime", *PRELOAD, WARM])
        self._python = python
        self._package = package or packaging.deployment_package(code_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        self._reaper = threading.Thread(target=self._reap, name="lambda-idle-reaper", daemon=True)
        self._reaper.start()

    # ------------------------------------------------------------------ invoke
    def invoke(self, config: FunctionConfig, event: Any, fault: str | None = None) -> tuple[str, bool]:
        """Lambda's answer to one synchronous invocation: (payload, whether it is a function error). ``fault``
        (sandbox.lambda_env.faults) is what goes wrong with this invocation."""
        env = self._acquire(config)
        healthy = False
        try:
            payload, failed, healthy = self._run(env, config, json.dumps(event, default=str), fault)
        finally:
            self._release(env, healthy)
        return payload, failed

    def _run(
        self, env: _Environment, config: FunctionConfig, event: str, fault: str | None = None
    ) -> tuple[str, bool, bool]:
        request_id = str(uuid.uuid4())
        ends_environment = fault in ("kill", "timeout")
        deadline = time.monotonic() + config.timeout
        env.conn.send(("invoke", request_id, event, float(config.timeout)))
        pending: dict[str, dict[str, Any]] = {}
        while True:
            remaining = deadline - time.monotonic()
            try:
                ready = env.conn.poll(max(remaining, 0))
                message = env.conn.recv() if ready else None
            except (EOFError, OSError):
                return _failure("Runtime.ExitError", f"RequestId: {request_id} Error: Runtime exited"), True, False
            if message is None:
                return (
                    _failure("Sandbox.Timedout", f"RequestId: {request_id} Error: Task timed out after "
                             f"{config.timeout:.2f} seconds"),
                    True,
                    False,
                )  # fmt: skip
            kind = message[0]
            if kind == "authorize":
                _, call_id, request = message
                refused = self.authorizer.authorize(config.deployed, request)
                if refused is None:
                    pending[call_id] = request
                env.conn.send(refused)
            elif kind == "succeeded":
                request = pending.pop(message[1], None)
                if request is not None:
                    self.authorizer.succeeded(config.deployed, request)
                    if ends_environment and _mutates(request):
                        # Mid-invocation, right after its first change to something other than its own
                        # records: the change stays, the answer is lost, and the environment is gone.
                        env.process.kill()
                        return fault_payload(str(fault), request_id, config.timeout), True, False
            elif kind == "result":
                _, payload, failed = message
                if ends_environment:  # no change made: it dies before answering
                    env.process.kill()
                    return fault_payload(str(fault), request_id, config.timeout), True, False
                if fault == "responseTooLarge":
                    return fault_payload(fault, request_id, config.timeout), True, True
                if fault == "stateTooLarge" and not failed:
                    payload = padded(payload)
                if len(payload.encode()) > RESPONSE_LIMIT:
                    return (
                        _failure("Function.ResponseSizeTooLarge", "Response payload size exceeded maximum "
                                 f"allowed payload size ({RESPONSE_LIMIT} bytes)."),
                        True,
                        True,
                    )  # fmt: skip
                if _resident_mb(env.process.pid) > config.memory:
                    return _failure("Runtime.OutOfMemory", "Runtime exited with error: signal: killed"), True, False
                return payload, failed, True

    # ------------------------------------------------------------------ environments
    def _acquire(self, config: FunctionConfig) -> _Environment:
        with self._lock:
            while True:
                if self._stopped:
                    raise RuntimeError("the sandbox is stopping")
                idle = self._idle[config.name]
                # After UpdateFunctionConfiguration, invocations run in environments with the new
                # configuration ("Lambda execution environment": an environment is initialized with the
                # function's configuration); the ones set up with the old one are not reused.
                for stale in [e for e in idle if e.config != config]:
                    idle.remove(stale)
                    self._recycled["configuration"] += 1
                    _stop(stale)
                if idle:
                    env = idle.pop()
                    self._busy[config.name] += 1
                    return env
                if self._busy[config.name] < self.max_per_function:
                    self._busy[config.name] += 1
                    break
                self._lock.wait(1.0)
        try:
            return self._start(config)
        except BaseException:
            with self._lock:
                self._busy[config.name] -= 1
                self._lock.notify_all()
            raise

    def _release(self, env: _Environment, healthy: bool) -> None:
        env.invocations += 1
        env.last_used = time.monotonic()
        with self._lock:
            self._busy[env.config.name] -= 1
            if healthy and not self._stopped and env.process.is_alive():
                self._idle[env.config.name].append(env)
            else:
                self._recycled["failed"] += 1
                _stop(env)
            self._lock.notify_all()

    def _start(self, config: FunctionConfig) -> _Environment:
        started = time.monotonic()
        parent, child = self._context.Pipe()
        stream = f"{time.strftime('%Y/%m/%d')}/[$LATEST]{uuid.uuid4().hex}"
        environment = {
            **config.environment,
            **lambda_reserved(config, stream),
            **self.credentials(config.role_arn, config.deployed),
        }
        setup = {
            "function_name": config.deployed,
            "function_arn": config.arn,
            "handler": config.handler,
            "memory": config.memory,
            "log_stream": stream,
            "log_path": str(self.log_dir / f"{config.deployed}.log"),
            "environment": environment,
            "aws_url": self.aws_url,
            **self._package,
        }
        process: Any
        if self._python:
            process = _Interpreter(self._python, child)
            parent.send(setup)
        else:
            name = f"lambda-{config.name}-{next(self._sequence)}"
            process = self._context.Process(target=runtime.main, args=(child, setup), name=name, daemon=True)
            process.start()
        child.close()
        env = _Environment(config, process, parent, started)
        if not parent.poll(max(config.timeout, 30)):
            _stop(env)
            raise RuntimeError(f"the execution environment of {config.name} did not start")
        _, init_seconds, _loaded = parent.recv()
        env.init_seconds = init_seconds
        with self._lock:
            reason = "scale-out or recycled" if config.name in self._started else "first"
            self._started.add(config.name)
            self._cold_starts.append(
                ColdStart(config.name, time.time(), time.monotonic() - started, reason, init_seconds)
            )
        return env

    def _reap(self) -> None:
        while not self._stopped:
            time.sleep(min(self.idle_seconds / 4, 15.0))
            now = time.monotonic()
            with self._lock:
                for name, envs in self._idle.items():
                    keep = [e for e in envs if now - e.last_used < self.idle_seconds and e.process.is_alive()]
                    for env in envs:
                        if env not in keep:
                            self._recycled["idle"] += 1
                            _stop(env)
                    self._idle[name] = keep

    # ------------------------------------------------------------------ report and stop
    def report(self) -> dict[str, Any]:
        with self._lock:
            warm = {name: len(envs) for name, envs in self._idle.items() if envs}
            busy = {name: n for name, n in self._busy.items() if n}
            colds = list(self._cold_starts)
            recycled = dict(self._recycled)
        return {
            "warm": warm,
            "busy": busy,
            "recycled": recycled,
            "coldStarts": [
                {
                    "function": c.function,
                    "at": c.at,
                    "initSeconds": round(c.init_seconds, 3),
                    "handlerSeconds": round(c.handler_seconds, 4),
                    "reason": c.reason,
                }
                for c in colds
            ],
        }

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            for envs in self._idle.values():
                for env in envs:
                    _stop(env)
            self._idle.clear()
            self._lock.notify_all()


class _Interpreter:
    """An environment started as a new process of another Python (the runtime's version), not forked from
    the sandbox: it reads its setup from its end of the pipe, then runs ``runtime.main`` (standard library
    only)."""

    _BOOT = (
        "import sys\n"
        "from multiprocessing.connection import Connection\n"
        "from sandbox.lambda_env.runtime import main\n"
        "conn = Connection(int(sys.argv[1]))\n"
        "main(conn, conn.recv())\n"
    )

    def __init__(self, python: str, child: Connection) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONHOME")}
        env["PYTHONPATH"] = str(packaging.ROOT)  # the runtime module; main() then keeps only the package
        self._popen = subprocess.Popen(
            [python, "-c", self._BOOT, str(child.fileno())], pass_fds=[child.fileno()], env=env, cwd=packaging.ROOT
        )
        self.pid = self._popen.pid

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def kill(self) -> None:
        self._popen.kill()

    def join(self, timeout: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)


def lambda_reserved(config: FunctionConfig, stream: str) -> dict[str, str]:
    """The runtime's reserved variables (Lambda developer guide, "Defined runtime environment variables")."""
    region, name = config.arn.split(":")[3], config.deployed
    return {
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "AWS_LAMBDA_FUNCTION_NAME": name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(config.memory),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
        "AWS_LAMBDA_LOG_STREAM_NAME": stream,
        "_HANDLER": config.handler,
        "LAMBDA_TASK_ROOT": "/var/task",
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        "TZ": ":UTC",
        "LANG": "en_US.UTF-8",
        "PATH": "/var/lang/bin:/usr/local/bin:/usr/bin/:/bin:/opt/bin",
    }


_READS = ("Describe", "List", "Get", "Head", "Search", "Query", "Scan", "BatchGet", "Lookup", "Select")


def _mutates(request: dict[str, Any]) -> bool:
    """Whether an AWS call changes something outside the function's own bookkeeping (a DynamoDB write records
    progress; the sandbox's IAM gate counts the same calls as mutations)."""
    return request.get("prefix") != "dynamodb" and not str(request.get("operation", "")).startswith(_READS)


def _failure(error_type: str, message: str) -> str:
    return json.dumps({"errorMessage": message, "errorType": error_type})


def _resident_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def _stop(env: _Environment) -> None:
    with contextlib.suppress(OSError):
        env.conn.close()
    if env.process.is_alive():
        env.process.kill()
    env.process.join(2)
