"""Lambda execution environments: a function runs in a process of its own with only its environment,
its package, a read-only filesystem outside /tmp and Lambda's limits, and is kept warm between
invocations (sandbox.lambda_env). The handlers here are a small deployment package written per test."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from sandbox.lambda_env.environments import Authorizer, ExecutionEnvironments, FunctionConfig
from tests.sandbox.aws.support import wait_until

PROBE = textwrap.dedent(
    """
    import os, time

    CALLS = 0


    def environment(event, context):
        return dict(os.environ)


    def count(event, context):
        global CALLS
        CALLS += 1
        return {"calls": CALLS, "pid": os.getpid(), "remaining": context.get_remaining_time_in_millis()}


    def write(event, context):
        try:
            with open(event["path"], "w") as f:
                f.write("x")
            return "written"
        except OSError as exc:
            return f"{exc.errno} {exc.strerror}"


    def imports(event, context):
        import importlib
        try:
            importlib.import_module(event["module"])
            return "imported"
        except ImportError as exc:
            return f"{type(exc).__name__}: {exc}"


    def sleep(event, context):
        time.sleep(event["seconds"])
        return "woke"


    def big(event, context):
        return "x" * event["bytes"]


    def crash(event, context):
        os._exit(1)


    def fails(event, context):
        raise ValueError("the cluster name is taken")


    def calls_aws(event, context):
        import boto3
        try:
            boto3.client("sts", region_name="us-east-1").get_caller_identity()
            return "allowed"
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
    """
)


class Refusing(Authorizer):
    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def authorize(self, function: str, request: dict[str, Any]) -> tuple[str, int, str] | None:
        self.asked.append((function, f"{request['prefix']}:{request['operation']}"))
        return "AccessDenied", 403, f"User: {function} is not authorized to perform: sts:GetCallerIdentity"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    code = tmp_path / "task"
    code.mkdir()
    (code / "probe.py").write_text(PROBE)
    return code


def _config(name: str, handler: str, timeout: int = 10, memory: int = 512) -> FunctionConfig:
    return FunctionConfig(
        name=name,
        arn=f"arn:aws:lambda:us-east-1:123456789012:function:launchpod-{name}",
        handler=handler,
        role_arn=f"arn:aws:iam::123456789012:role/launchpod-{name}",
        timeout=timeout,
        memory=memory,
        environment={"LAUNCHPOD_BUCKET": f"bucket-of-{name}"},
    )


CONFIGS = {
    c.name: c
    for c in [
        _config("env", "probe.environment"),
        _config("count", "probe.count"),
        _config("other-count", "probe.count"),
        _config("write", "probe.write"),
        _config("imports", "probe.imports"),
        _config("sleep", "probe.sleep", timeout=1),
        _config("big", "probe.big"),
        _config("crash", "probe.crash"),
        _config("fails", "probe.fails"),
        _config("aws", "probe.calls_aws"),
        _config("missing", "not_in_the_package.handler"),
    ]
}


@pytest.fixture
def lambdas(package: Path, tmp_path: Path):
    authorizer = Refusing()
    envs = ExecutionEnvironments(
        aws_url="http://127.0.0.1:9",
        log_dir=tmp_path / "logs",
        credentials=lambda role, function: {"AWS_ACCESS_KEY_ID": f"ASIA-{function}",
                                            "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token"},
        authorizer=authorizer,
        code_dir=package,
    )  # fmt: skip
    envs.authorizer_seen = authorizer  # type: ignore[attr-defined]
    yield envs
    envs.stop()


def _answer(envs: ExecutionEnvironments, function: str, event: Any = None) -> tuple[Any, bool]:
    payload, failed = envs.invoke(CONFIGS[function], event or {})
    return json.loads(payload), failed


def test_a_function_sees_only_its_own_environment_and_credentials(lambdas):
    os.environ["SANDBOX_ONLY_SECRET"] = "never-in-a-function"
    try:
        env, failed = _answer(lambdas, "env")
    finally:
        del os.environ["SANDBOX_ONLY_SECRET"]
    assert not failed
    assert "SANDBOX_ONLY_SECRET" not in env
    assert env["LAUNCHPOD_BUCKET"] == "bucket-of-env"
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == "launchpod-env"
    assert env["AWS_ACCESS_KEY_ID"] == "ASIA-launchpod-env"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "512"


def test_an_environment_is_reused_warm_and_functions_never_share_one(lambdas):
    first, _ = _answer(lambdas, "count")
    second, _ = _answer(lambdas, "count")
    other, _ = _answer(lambdas, "other-count")
    assert (first["calls"], second["calls"]) == (1, 2)
    assert first["pid"] == second["pid"] != os.getpid()
    assert other["calls"] == 1 and other["pid"] != first["pid"]
    assert 0 < first["remaining"] <= 10_000
    cold = [c["function"] for c in lambdas.report()["coldStarts"]]
    assert cold.count("count") == 1 and cold.count("other-count") == 1


def test_the_filesystem_is_read_only_outside_tmp(lambdas):
    # not under /tmp, wherever the checkout is (a clone under /tmp would make the test's own folder writable)
    outside = Path("/var/launchpod-written-by-a-function.json")
    refused, _ = _answer(lambdas, "write", {"path": str(outside)})
    inside = Path(f"/tmp/launchpod-probe-{os.getpid()}.json")  # Lambda's writable /tmp, whatever TMPDIR says
    allowed, _ = _answer(lambdas, "write", {"path": str(inside)})
    assert refused == "30 Read-only file system"
    assert allowed == "written"
    assert not outside.exists()
    inside.unlink()


@pytest.mark.parametrize("module", ["sandbox", "moto", "tests", "mcp_gateway", "httpx"])
def test_a_module_outside_the_package_and_layer_does_not_import(lambdas, module):
    answer, _ = _answer(lambdas, "imports", {"module": module})
    assert answer == f"ModuleNotFoundError: No module named '{module}'"


def test_the_layer_imports(lambdas):
    for module in ("boto3", "kubernetes.client", "aws_lambda_powertools", "pydantic", "yaml", "jwt"):
        assert _answer(lambdas, "imports", {"module": module})[0] == "imported"


def test_a_handler_missing_from_the_package_fails_as_lambda_reports_it(lambdas):
    answer, failed = _answer(lambdas, "missing")
    assert failed
    assert answer["errorType"] == "Runtime.ImportModuleError"
    assert "not_in_the_package" in answer["errorMessage"]


def test_a_timeout_ends_the_invocation_and_the_next_one_starts_cold(lambdas):
    answer, failed = _answer(lambdas, "sleep", {"seconds": 5})
    assert failed and answer["errorType"] == "Sandbox.Timedout"
    assert "Task timed out after 1.00 seconds" in answer["errorMessage"]
    again, failed = _answer(lambdas, "sleep", {"seconds": 0})
    assert (again, failed) == ("woke", False)
    assert [c["function"] for c in lambdas.report()["coldStarts"]].count("sleep") == 2


def test_a_response_over_six_megabytes_is_refused(lambdas):
    answer, failed = _answer(lambdas, "big", {"bytes": 7 * 1024 * 1024})
    assert failed and answer["errorType"] == "Function.ResponseSizeTooLarge"
    small, failed = _answer(lambdas, "big", {"bytes": 10})
    assert (small, failed) == ("x" * 10, False)


def test_a_crashed_environment_is_replaced(lambdas):
    answer, failed = _answer(lambdas, "crash")
    assert failed and answer["errorType"] == "Runtime.ExitError"
    assert _answer(lambdas, "env")[1] is False
    assert lambdas.report()["recycled"]["failed"] >= 1


def test_an_exception_is_a_function_error_named_by_its_class(lambdas):
    answer, failed = _answer(lambdas, "fails")
    assert failed
    assert (answer["errorType"], answer["errorMessage"]) == ("ValueError", "the cluster name is taken")


def test_every_aws_call_is_authorized_as_the_function_before_it_is_sent(lambdas):
    answer, _ = _answer(lambdas, "aws")
    assert answer.startswith("ClientError: An error occurred (AccessDenied)")
    assert lambdas.authorizer_seen.asked == [("launchpod-aws", "sts:GetCallerIdentity")]


def test_an_idle_environment_is_recycled(package, tmp_path):
    envs = ExecutionEnvironments(
        aws_url="http://127.0.0.1:9",
        log_dir=tmp_path / "idle-logs",
        credentials=lambda role, function: {},
        authorizer=Authorizer(),
        code_dir=package,
        idle_seconds=0.4,
    )
    try:
        first, _ = _answer(envs, "count")
        wait_until(lambda: not envs.report()["warm"], timeout=20)
        assert envs.report()["recycled"].get("idle") == 1
        again, _ = _answer(envs, "count")
        assert again["calls"] == 1 and again["pid"] != first["pid"]
    finally:
        envs.stop()


def test_a_configuration_update_takes_effect_in_new_environments(lambdas):
    before, _ = _answer(lambdas, "count")
    updated = dataclasses.replace(CONFIGS["count"], timeout=3)
    payload, _ = lambdas.invoke(updated, {})
    after = json.loads(payload)
    assert after["calls"] == 1 and after["pid"] != before["pid"]
    assert 0 < after["remaining"] <= 3_000
    assert lambdas.report()["recycled"]["configuration"] == 1


def test_the_runtime_hooks_a_module_when_the_function_imports_it_and_not_before():
    import sys

    from sandbox.lambda_env import runtime

    sys.modules.pop("wave", None)
    seen: list[object] = []
    runtime.when_imported("wave", seen.append)
    try:
        assert seen == [] and "wave" not in sys.modules  # the runtime itself imported nothing
        import wave

        assert seen == [wave] and hasattr(seen[0], "open")  # the hook saw the module loaded
        runtime.when_imported("wave", seen.append)  # already imported: at once
        assert seen == [wave, wave]
    finally:
        sys.meta_path.remove(runtime._AFTER_IMPORT)


def test_the_package_carries_bytecode_for_each_module_as_the_deployed_asset_does(lambdas, package):
    """The code asset ships compiled modules (cdk/build_code.py), so a cold start reads bytecode instead of
    compiling on a read-only filesystem; the sandbox's package has it too, current with each module's source."""
    _answer(lambdas, "count")
    cached = Path(importlib.util.cache_from_source(str(package / "probe.py")))
    assert cached.exists()
    header = cached.read_bytes()[:16]  # PEP 552: magic, flags (0: checked by timestamp), mtime, size
    assert header[:4] == importlib.util.MAGIC_NUMBER and int.from_bytes(header[4:8], "little") == 0
    assert int.from_bytes(header[8:12], "little") == int((package / "probe.py").stat().st_mtime)
