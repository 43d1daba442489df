"""The ``launchpod`` CLI against a running sandbox, as a person drives it: a cluster created with --wait
shows each phase as it runs and ends SUCCEEDED; the clusters list as a table and as JSON; a dry run answers
the plan and starts nothing; an operation that fails exits non-zero with the failed phase's message and the
command that resumes it; a refused request names the options to fix."""

from __future__ import annotations

import json
import re

import pytest

from tests.sandbox.cli_support import Launchpod

pytestmark = pytest.mark.e2e
NAME = "cli-e2e"
ZONES = ("--availability-zones", "us-east-1a", "us-east-1b")


@pytest.fixture(scope="module")
def lp(sandbox, tmp_path_factory) -> Launchpod:
    return Launchpod(sandbox, tmp_path_factory.mktemp("launchpod-home"))


@pytest.fixture(scope="module")
def created(lp):
    return lp.run("clusters", "create", "--cluster", NAME, *ZONES, "--wait", "--poll-interval", "0.2", role="admin")


def test_create_with_wait_follows_each_phase_to_succeeded(created) -> None:
    assert created.returncode == 0, created.stderr
    progress = created.stderr.splitlines()
    titles = ["Create the EKS cluster", "Wait until EKS is ACTIVE", "Reach the Kubernetes API"]
    seen = [next(i for i, line in enumerate(progress) if title in line) for title in titles]
    assert seen == sorted(seen), progress  # shown in the order they ran
    assert progress[-1].startswith("Operation op-") and f"create-control-plane on {NAME}) SUCCEEDED" in progress[-1]
    phases = created.stdout.splitlines()
    assert phases[0].split()[:2] == ["STATUS", "NAME"]
    assert {row.split()[0] for row in phases[1:]} == {"SUCCEEDED"}, created.stdout


def test_clusters_list_as_a_table_and_as_json(lp, created) -> None:
    table = lp.run("clusters", "list", role="viewer")
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert re.split(r"\s{2,}", header)[:3] == ["NAME", "EKS STATUS", "HYPERPOD STATUS"]
    row = next(r for r in rows if r.split()[0] == NAME)
    assert row.split()[1:3] == ["ACTIVE", "NOT_CREATED"]

    as_json = lp.run("clusters", "list", "--output", "json", role="viewer")
    assert as_json.returncode == 0, as_json.stderr
    cluster = next(c for c in json.loads(as_json.stdout)["items"] if c["name"] == NAME)
    assert cluster["eks"]["status"] == "ACTIVE"


def test_a_dry_run_answers_the_plan_and_starts_nothing(lp, created) -> None:
    before = json.loads(lp.run("operations", "list", "--cluster", NAME, "-o", "json", role="viewer").stdout)
    planned = lp.run("clusters", "delete", NAME, "--confirm", NAME, "--dry-run", role="admin")
    assert planned.returncode == 0, planned.stderr
    first, header, *steps = planned.stdout.splitlines()
    assert first.startswith(f"Dry run on {NAME}:") and "nothing was started" in first
    assert header.split()[:2] == ["ACTION", "TARGET"] and steps
    assert all(s.split()[0] == "delete" for s in steps if s and not s.startswith("warning")), planned.stdout
    after = json.loads(lp.run("operations", "list", "--cluster", NAME, "-o", "json", role="viewer").stdout)
    assert [o["id"] for o in after["items"]] == [o["id"] for o in before["items"]]
    still = json.loads(lp.run("clusters", "get", NAME, "-o", "json", role="viewer").stdout)
    assert still["eks"]["status"] == "ACTIVE"


def test_a_failed_operation_exits_non_zero_with_the_phase_and_how_to_resume(lp, sandbox) -> None:
    sandbox.faults(failNextEksCreate=True)
    create = ("clusters", "create", "--cluster", "cli-fails", *ZONES, "--wait", "--poll-interval", "0.2")
    failed = lp.run(*create, role="admin")
    assert failed.returncode == 3, (failed.stdout, failed.stderr)
    said = failed.stderr
    assert "FAILED" in said and "in phase CreateCluster" in said, said
    operation = said.split("Operation ", 1)[1].split()[0]
    assert f"launchpod operations retry {operation} --wait" in said
    view = json.loads(lp.run("operations", "get", operation, "-o", "json", role="viewer").stdout)
    failed_phase = next(p for p in view["phases"] if p["status"] == "FAILED")
    assert failed_phase["message"] in said


def test_a_refused_request_names_the_options_to_fix(lp) -> None:
    create = ("clusters", "create", "--cluster", "no_underscores", "--availability-zones", "us-east-1a")
    refused = lp.run(*create, role="admin")
    assert refused.returncode == 1
    assert "  --cluster: " in refused.stderr and "  --availability-zones: " in refused.stderr, refused.stderr
    assert "HTTP 422 VALIDATION_FAILED" in refused.stderr


def test_a_viewer_is_refused_a_mutation_with_the_role_it_needs(lp) -> None:
    refused = lp.run("clusters", "create", "--cluster", "cli-viewer", *ZONES, role="viewer")
    assert refused.returncode == 1 and "HTTP 403" in refused.stderr, refused.stderr


def test_without_cluster_a_command_works_on_your_active_cluster(lp, sandbox, created) -> None:
    with sandbox.client("viewer") as c:  # another module may have chosen one for the viewer
        assert c.put("/api/preferences", json={"activeCluster": None}).status_code == 200
    refused = lp.run("features", "list", role="viewer")
    assert refused.returncode == 1 and "launchpod preferences set --active-cluster NAME" in refused.stderr
    try:
        chosen = lp.run("preferences", "set", "--active-cluster", NAME, role="viewer")
        assert chosen.returncode == 0, chosen.stderr
        listed = lp.run("features", "list", "-o", "json", role="viewer")
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout)["cluster"] == NAME
    finally:
        # preferences are the viewer's own and outlive this module: leave them as found
        with sandbox.client("viewer") as c:
            assert c.put("/api/preferences", json={"activeCluster": None}).status_code == 200
