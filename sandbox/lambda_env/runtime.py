"""The runtime inside one Lambda execution environment: the sandbox's counterpart of Lambda's runtime
interface client, running in a process of its own.

It sets the environment up as Lambda does before the init phase, then loads the handler and serves
invocations one at a time over its pipe. Only the standard library is imported here before the
function's own code: what the function imports comes from the deployment package (``functions/``) and
the layer (pyproject's ``[project].dependencies``), and nothing else resolves.

What it makes the process look like (Lambda developer guide, "Lambda execution environment" and
"Defined runtime environment variables"):
- the function's environment only: CDK's variables, the reserved ``AWS_*``/``LAMBDA_*`` ones and the
  role's temporary credentials;
- a read-only filesystem outside ``/tmp`` ("The Lambda execution environment provides a writable
  /tmp"; every other path raises EROFS);
- the network: requests to AWS endpoints reach the sandbox's moto server (the sandbox's DNS, in
  effect), and every AWS call is first authorized by the sandbox's IAM as the function's role.
"""

from __future__ import annotations

import errno
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_WRITE_EVENTS = {"os.mkdir", "os.remove", "os.rmdir", "os.rename", "os.chmod", "os.symlink", "os.link", "os.truncate"}
_WRITABLE = ("/tmp", "/dev/null", "/dev/shm")


class _Denied(importlib.abc.MetaPathFinder):
    """Refuses top-level modules the deployment package and layer do not ship."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> None:
        top = fullname.partition(".")[0]
        if top not in self.allowed and top not in sys.stdlib_module_names:
            raise ModuleNotFoundError(f"No module named '{top}'", name=top)
        return None


def _writable(path: Any) -> bool:
    if isinstance(path, int):
        return True  # a descriptor already open
    real = os.path.realpath(os.fsdecode(path))
    return any(real == root or real.startswith(root + "/") for root in _WRITABLE)


def _read_only_filesystem(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writing and path is not None and not _writable(path):
            raise OSError(errno.EROFS, "Read-only file system", os.fsdecode(path))
    elif event in _WRITE_EVENTS and args and not _writable(args[0]):
        raise OSError(errno.EROFS, "Read-only file system", os.fsdecode(args[0]))


class _Channel:
    """The pipe to the sandbox; one exchange at a time (a handler's threads may call AWS at once)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.lock = threading.Lock()

    def ask(self, message: tuple[Any, ...]) -> Any:
        with self.lock:
            self.conn.send(message)
            return self.conn.recv()

    def tell(self, message: tuple[Any, ...]) -> None:
        with self.lock:
            self.conn.send(message)


def _plain(value: Any, depth: int = 0) -> Any:
    """The request's parameters as the IAM evaluation reads them (bodies and streams left out)."""
    if depth > 12:
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes | bytearray):
        return ""
    return str(value) if hasattr(value, "isoformat") else None


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a hook on a module right after the function's own code imports it, so that the runtime imports
    nothing but the standard library before the handler (Lambda's runtime does not import botocore: a
    function that uses it pays for it in its init phase)."""

    def __init__(self) -> None:
        self.hooks: dict[str, Any] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        hook = self.hooks.pop(fullname, None)
        if hook is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            hook(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_AFTER_IMPORT = _AfterImport()


def when_imported(name: str, hook: Any) -> None:
    """``hook(module)`` now if ``name`` is imported already (the fork server preloads the layer), else as
    soon as it is."""
    if name in sys.modules:
        hook(sys.modules[name])
        return
    if _AFTER_IMPORT not in sys.meta_path:
        sys.meta_path.insert(0, _AFTER_IMPORT)
    _AFTER_IMPORT.hooks[name] = hook


def _route_aws_to(aws_url: str) -> None:
    """AWS endpoints resolve to the sandbox's moto server; the Host header keeps the service's name
    (moto's server picks the service from it, as AWS's front ends do from the hostname)."""
    when_imported("botocore.httpsession", lambda httpsession: _route(httpsession, aws_url))


def _route(httpsession: Any, aws_url: str) -> None:
    from urllib.parse import urlsplit

    original = httpsession.URLLib3Session.send
    target = urlsplit(aws_url)

    def send(self: Any, request: Any) -> Any:
        parts = urlsplit(request.url)
        if parts.hostname and parts.hostname.endswith(".amazonaws.com"):
            request.headers["Host"] = parts.netloc
            request.url = parts._replace(scheme=target.scheme, netloc=target.netloc).geturl()
        return original(self, request)

    httpsession.URLLib3Session.send = send


def _authorize_calls(channel: _Channel) -> None:
    """Every boto3 call is authorized by the sandbox's IAM as this function's role before it is sent."""
    when_imported("botocore.client", lambda module: _authorize(module.BaseClient, channel))


def _authorize(BaseClient: Any, channel: _Channel) -> None:
    original = BaseClient._make_api_call

    def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        model = self.meta.service_model
        call_id = uuid.uuid4().hex
        refused = channel.ask(
            (
                "authorize",
                call_id,
                {
                    "prefix": model.signing_name or model.endpoint_prefix,
                    "operation": operation_name,
                    "params": _plain(api_params),
                    "region": self.meta.region_name,
                    "endpoint": str(self.meta.endpoint_url or ""),
                    "protocol": model.metadata.get("protocol", ""),
                },
            )
        )
        if refused is not None:
            raise refused_error(self, operation_name, *refused)
        answer = original(self, operation_name, api_params)
        channel.tell(("succeeded", call_id))
        return answer

    BaseClient._make_api_call = _make_api_call


def refused_error(client: Any, operation: str, code: str, status: int, message: str) -> Exception:
    """The ClientError a service answers a refused call with (an IAM denial names the principal)."""
    response = {
        "Error": {"Code": code, "Message": message},
        "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": str(uuid.uuid4())},
    }
    error: Exception = client.exceptions.from_code(code)(response, operation)
    return error


class Context:
    """The Lambda context object's attributes (what powertools reads)."""

    def __init__(self, config: dict[str, Any], request_id: str, deadline: float) -> None:
        self.function_name = config["function_name"]
        self.function_version = "$LATEST"
        self.invoked_function_arn = config["function_arn"]
        self.memory_limit_in_mb = int(config["memory"])
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = config["log_stream"]
        self.identity = None
        self.client_context = None
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def error_payload(exc: BaseException, error_type: str | None = None) -> str:
    """Lambda's unhandled-error document, for the runtime here and the in-process invoke alike."""
    # Step Functions takes errorType as the ASL error name, so `raise RetryableError(...)` matches
    # `"ErrorEquals": ["RetryableError"]`.
    return json.dumps(
        {
            "errorMessage": str(exc),
            "errorType": error_type or type(exc).__name__,
            "requestId": "",
            "stackTrace": traceback.format_exception(exc)[-5:],
        }
    )


def load_handler(handler: str) -> Any:
    module_name, _, func_name = handler.rpartition(".")
    if not module_name:
        raise InitError("Runtime.MalformedHandlerName", f"Bad handler '{handler}': not enough values")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InitError("Runtime.ImportModuleError", f"Unable to import module '{module_name}': {exc}") from exc
    function = getattr(module, func_name, None)
    if not callable(function):
        raise InitError("Runtime.HandlerNotFound", f"Handler '{func_name}' missing on module '{module_name}'")
    return function


class InitError(Exception):
    """The handler cannot be loaded; ``error_type`` is the name Lambda reports."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def main(conn: Connection, config: dict[str, Any]) -> None:
    """Set the environment up, run the init phase, then answer invocations until the pipe closes."""
    log = os.open(config["log_path"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.environ.clear()
    os.environ.update(config["environment"])
    sys.dont_write_bytecode = True
    sys.path[:] = [config["code_dir"], *config["library_paths"]]
    sys.meta_path.insert(0, _Denied(set(config["allowed_modules"])))
    for name in [m for m in sys.modules if m.partition(".")[0] in config["forget_modules"]]:
        del sys.modules[name]  # the parent's copies (the sandbox package itself) are not in the package
    importlib.invalidate_caches()
    os.chdir(config["code_dir"])
    channel = _Channel(conn)
    _route_aws_to(config["aws_url"])
    _authorize_calls(channel)
    sys.addaudithook(_read_only_filesystem)
    started = time.monotonic()
    try:
        handler: Any = load_handler(config["handler"])
        init_error: InitError | None = None
    except InitError as exc:
        handler, init_error = None, exc
    except Exception as exc:  # an exception at import time fails the init phase
        handler, init_error = None, InitError("Runtime.ImportModuleError", f"{type(exc).__name__}: {exc}")
    channel.tell(("ready", time.monotonic() - started, init_error is None))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        _kind, request_id, event, timeout = message
        if init_error is not None:
            conn.send(("result", error_payload(init_error, init_error.error_type), True))
            continue
        context = Context(config, request_id, time.monotonic() + timeout)
        try:
            payload, failed = json.dumps(handler(json.loads(event), context), default=str), False
        except Exception as exc:
            print(f"[ERROR] {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            payload, failed = error_payload(exc), True
        sys.stdout.flush()
        conn.send(("result", payload, failed))
