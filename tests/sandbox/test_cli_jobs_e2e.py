"""``launchpod jobs`` against the shared training cluster: a job submitted from the command line, its log
followed with ``-f`` while it runs, each line printed once and in order, the follower ending with the job."""

from __future__ import annotations

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.cli_support import Launchpod
from tests.sandbox.jobs_support import CLAIM, NAME, SCRIPT, job_view, log_interval, ready_cluster, upload

pytestmark = pytest.mark.e2e
JOB = "cli-follow"


@pytest.fixture(scope="module")
def lp(sandbox, tmp_path_factory) -> Launchpod:
    ready_cluster(sandbox)
    return Launchpod(sandbox, tmp_path_factory.mktemp("launchpod-home"))


@pytest.fixture
def slow_steps(sandbox):
    # 40 steps of 100 simulated seconds: the job logs for 20 real seconds, so the follower sees it run even when
    # a loaded machine takes seconds to start the CLI's process
    with log_interval(sandbox, 100):
        yield


def test_a_submitted_jobs_log_is_followed_with_f_until_it_succeeds(sandbox, lp, slow_steps) -> None:
    upload(sandbox, "jobs/train.py", SCRIPT)
    command = '["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"]'
    image = "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime"
    submit = ["jobs", "submit", "--cluster", NAME, "--job-name", JOB, "--instance-group", "gpu"]
    submit += ["--image", image, "--command", command, "--storage-claim", CLAIM]
    submitted = lp.run(*submit, role="operator")
    assert submitted.returncode == 0, submitted.stderr
    assert "jobName         cli-follow" in submitted.stdout

    # --tail 5000: the whole log from its start, however late the follower starts on a loaded machine
    follow = ("jobs", "logs", "--cluster", NAME, JOB, "-f", "--tail", "5000", "--poll-interval", "0.2")
    follower = lp.popen(*follow, role="viewer")
    assert follower.stdout is not None and follower.stderr is not None
    first = follower.stdout.readline()
    # the first line arrives while the job still runs: this is following, not reading a finished log
    assert first and job_view(sandbox, JOB)["status"] in ("Pending", "Created", "Running", "Restarting"), first
    # read on through the same text stream: communicate() would read the pipe beneath it and lose the lines
    # readline() already buffered (stderr carries a few lines only, so it cannot fill its pipe meanwhile)
    rest = follower.stdout.read()
    said = follower.stderr.read()
    assert follower.wait(timeout=180) == 0, said
    assert f"Job {JOB} Succeeded" in said

    with sandbox.client("viewer") as c:
        whole = c.get(f"/api/clusters/{NAME}/jobs/{JOB}/logs", params={"tail": 5000}).json()["lines"]
    followed = (first + rest).splitlines()
    assert followed == whole  # every line once, in order
    assert any("step 40/40" in line for line in followed) and "training complete" in followed[-1]

    deleted = lp.run("jobs", "delete", "--cluster", NAME, JOB, "--confirm", JOB, role="operator")
    assert deleted.returncode == 0, deleted.stderr
    wait_until(lambda: JOB not in lp.run("jobs", "list", "--cluster", NAME, role="viewer").stdout, timeout=30)
