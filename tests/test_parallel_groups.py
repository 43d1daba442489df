"""The suite's parallel groups (tests/conftest.py): modules that share the training-job cluster (or the
inference cluster) must run on one worker, or each worker's sandbox would make that cluster again and their
shared state would split."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import xdist_group_of

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_on_the_training_job_cluster_runs_in_its_group() -> None:
    users = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if "from tests.sandbox.jobs_support import" in p.read_text() and p.name != Path(__file__).name
    )
    assert len(users) >= 5, users
    assert {path: xdist_group_of(path) for path in users} == {path: "jobs-cluster" for path in users}


def test_every_module_on_the_inference_cluster_runs_in_its_group() -> None:
    users = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if "from tests.sandbox.inference_support import" in p.read_text() and p.name != Path(__file__).name
    )
    assert len(users) >= 2, users
    assert {path: xdist_group_of(path) for path in users} == {path: "inference-cluster" for path in users}


def test_other_modules_are_their_own_group_and_the_cdk_tests_share_one() -> None:
    assert xdist_group_of("tests/sandbox/test_nodes_e2e.py") == "tests/sandbox/test_nodes_e2e.py"
    assert xdist_group_of("tests/infra/test_checks.py") == xdist_group_of("tests/infra/test_functions.py") == "infra"
