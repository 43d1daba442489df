"""Fixtures shared across the suite: fresh moto AWS per test, the registry's tables, a Lambda context."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from launchpod import registry
from launchpod.runtime.settings import settings
from moto import mock_aws


@pytest.fixture
def aws(monkeypatch) -> Iterator[None]:
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("LAUNCHPOD_AWS_ENDPOINT_URL", raising=False)
    settings.cache_clear()
    with mock_aws():
        yield
    settings.cache_clear()


@pytest.fixture
def tables(aws) -> dict[str, str]:
    import boto3

    from sandbox.provision import _create_table, table_name

    ddb = boto3.client("dynamodb", region_name="us-east-1")
    for spec in registry.TABLES:
        _create_table(ddb, spec)
    return {spec.key: table_name(spec.key) for spec in registry.TABLES}


@pytest.fixture
def lambda_context() -> SimpleNamespace:
    """Enough of a Lambda context for powertools' logger and handlers called directly."""
    return SimpleNamespace(
        function_name="f",
        memory_limit_in_mb=128,
        invoked_function_arn="arn",
        aws_request_id="1",
        function_version="1",
        log_group_name="g",
        log_stream_name="s",
    )


# ---------------------------------------------------------------------------- parallel runs
# `make test` runs the suite on four pytest-xdist workers (`pytest -n 4 --dist loadgroup --no-loadscope-reorder`);
# each worker starts its own sandbox, so no test sees another worker's AWS or Kubernetes state. A group runs whole
# on one worker: a module (its module-scoped cluster is provisioned once), the CDK tests (one synth per session),
# and the modules sharing the training-job cluster or the inference cluster (tests/sandbox/jobs_support.py and
# inference_support.py make each once per sandbox, found by name). Each of those two clusters' modules are in two
# halves, each half able to run alone on a fresh sandbox: the halves run side by side on different workers, at the
# cost of each worker provisioning the cluster once, instead of one worker running them all while the other idles.
_JOBS_API, _JOBS_CONSOLE = "jobs-cluster:api", "jobs-cluster:console"
_SERVING, _MODELS = "inference-cluster:serving", "inference-cluster:models"
_SHARED_GROUPS = {
    "tests/infra/": "infra",
    "tests/sandbox/test_jobs_e2e.py": _JOBS_API,
    "tests/sandbox/test_spaces_e2e.py": _JOBS_API,
    "tests/sandbox/test_log_stream_e2e.py": _JOBS_API,
    "tests/sandbox/test_mcp_jobs.py": _JOBS_API,
    "tests/sandbox/test_mlflow_e2e.py": _JOBS_API,
    "tests/sandbox/test_observability_e2e.py": _JOBS_API,
    "tests/sandbox/test_metrics_jobs_e2e.py": _JOBS_API,
    "tests/sandbox/test_planner_jobs_e2e.py": _JOBS_API,
    "tests/sandbox/test_diagnose_nccl_e2e.py": _JOBS_API,
    "tests/sandbox/test_unknown_ids_e2e.py": _JOBS_API,
    "tests/sandbox/test_cli_jobs_e2e.py": _JOBS_API,
    "tests/sandbox/test_watch_jobs_e2e.py": _JOBS_API,
    "tests/sandbox/browser/test_jobs_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/browser/test_spaces_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/browser/test_console_parity_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/browser/test_metrics_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/browser/test_observability_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/browser/test_console_layout_ui.py": _JOBS_CONSOLE,
    "tests/sandbox/test_inference_e2e.py": _SERVING,
    "tests/sandbox/test_inference_autoscaling_e2e.py": _SERVING,
    "tests/sandbox/test_openai_e2e.py": _SERVING,
    "tests/sandbox/test_serving_e2e.py": _SERVING,
    "tests/sandbox/test_planner_inference_e2e.py": _MODELS,
    "tests/sandbox/test_models_e2e.py": _MODELS,
    "tests/sandbox/test_metrics_inference_e2e.py": _MODELS,
    "tests/sandbox/browser/test_endpoint_metrics_ui.py": _MODELS,
}

# The order xdist hands the groups out in: the longest first (minutes each, measured on this 2-core machine), so
# that what is left at the end is many short units the workers share evenly. A long unit handed out last leaves
# the other worker idle while it runs (xdist's own order, by number of tests, started the inference cluster's
# modules after two hundred quick unit tests). The rest follow: the other sandbox modules (browser ones first),
# then the unit tests.
_LONGEST_FIRST = [
    _JOBS_API,  # 391 s alone on a fresh sandbox at load 10
    _JOBS_CONSOLE,  # 328 s
    "tests/sandbox/test_fuzz_api.py",  # ~285 s
    "infra",  # ~215 s: two CDK synths and cfn-lint over two templates
    _SERVING,  # 201 s
    _MODELS,  # 183 s
]


_UNIT_TESTS = 3  # the rank of everything that needs no sandbox


def _rank(group: str) -> tuple[int, int]:
    if group in _LONGEST_FIRST:
        return 0, _LONGEST_FIRST.index(group)
    if group.startswith("tests/sandbox/browser/"):
        return 1, 0
    if group.startswith("tests/sandbox/"):
        return 2, 0
    return _UNIT_TESTS, 0


def pytest_configure(config) -> None:
    # xdist registers this mark; without xdist (-p no:xdist) --strict-markers would refuse it.
    config.addinivalue_line("markers", "xdist_group(name): run with the other tests of the group on one worker")
    major, minor = (int(part) for part in pytest.__version__.split(".")[:2])
    if (major, minor) >= (9, 2) and config.getoption("dist", default="no") == "loadgroup":
        raise pytest.UsageError(
            f"pytest {pytest.__version__} ignores xdist's groups (pyproject.toml pins pytest<9.2): a module's tests "
            "would scatter across workers. Run `make install` again, or pip install 'pytest<9.2'."
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a worker's first unit test (the last rank: every group using the shared sandbox was handed out before
    it, and this worker has run all of its own), the worker's sandbox stops."""
    if (
        _rank(xdist_group_of(item.nodeid.split("::", 1)[0]))[0] == _UNIT_TESTS
        and "tests.sandbox.conftest" in sys.modules
    ):
        sys.modules["tests.sandbox.conftest"].stop_shared_sandbox()


def xdist_group_of(path: str) -> str:
    """The group a test file's tests run in: a shared group, or the file itself."""
    return next((group for prefix, group in _SHARED_GROUPS.items() if path.startswith(prefix)), path)


# tryfirst: xdist's worker suffixes each item's node id with its xdist_group marks in its own
# pytest_collection_modifyitems (the id its loadgroup scheduler groups by); marks added after it are not seen.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(xdist_group_of(path)))
    # Stable: a group's tests keep their order. Every worker sorts the same collection the same way, as xdist needs.
    items.sort(key=lambda item: _rank(xdist_group_of(item.nodeid.split("::", 1)[0])))
