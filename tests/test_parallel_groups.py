"""The suite's parallel groups (tests/conftest.py): modules that share the training-job cluster (or the
inference cluster) run in one of that cluster's two halves, each half whole on one worker; and xdist hands out
the longest groups first."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import _rank, pytest_runtest_setup, xdist_group_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("support", "halves", "at_least"),
    [
        ("jobs_support", {"jobs-cluster:api", "jobs-cluster:console"}, 5),
        ("inference_support", {"inference-cluster:serving", "inference-cluster:models"}, 2),
    ],
    ids=["training-job cluster", "inference cluster"],
)
def test_every_module_on_a_shared_cluster_runs_in_its_groups(support: str, halves: set[str], at_least: int) -> None:
    users = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if f"from tests.sandbox.{support} import" in p.read_text() and p.name != Path(__file__).name
    )
    assert len(users) >= at_least, users
    groups = {path: xdist_group_of(path) for path in users}
    assert set(groups.values()) == halves, groups


def test_other_modules_are_their_own_group_and_the_cdk_tests_share_one() -> None:
    assert xdist_group_of("tests/sandbox/test_nodes_e2e.py") == "tests/sandbox/test_nodes_e2e.py"
    assert xdist_group_of("tests/infra/test_checks.py") == xdist_group_of("tests/infra/test_functions.py") == "infra"


def test_the_long_groups_are_handed_out_first_and_the_unit_tests_last() -> None:
    order = sorted(
        ["tests/domain/test_naming.py", "tests/sandbox/test_nodes_e2e.py", "infra", "jobs-cluster:console"],
        key=_rank,
    )
    assert order == ["jobs-cluster:console", "infra", "tests/sandbox/test_nodes_e2e.py", "tests/domain/test_naming.py"]


def test_a_workers_first_unit_test_stops_its_idle_sandbox_and_no_sandbox_test_does(monkeypatch) -> None:
    stopped: list[str] = []
    monkeypatch.setitem(
        sys.modules,
        "tests.sandbox.conftest",
        SimpleNamespace(stop_shared_sandbox=lambda: stopped.append("x")),
    )
    for nodeid in (
        "tests/sandbox/test_nodes_e2e.py::t",
        "tests/sandbox/browser/test_web_ui.py::t",
        "tests/infra/x.py::t",
    ):
        pytest_runtest_setup(SimpleNamespace(nodeid=nodeid))
    assert stopped == []
    pytest_runtest_setup(SimpleNamespace(nodeid="tests/domain/test_naming.py::t"))
    assert stopped == ["x"]
