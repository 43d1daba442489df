"""A training job that fails on the shared jobs cluster is told once at a chat webhook by the scheduled watcher,
with the link that opens the job in the console; the next runs of the watcher tell nobody again."""

from __future__ import annotations

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import NAME, custom_job, job_view, ready_cluster, submit
from tests.sandbox.watch_support import texts, watch, webhook

pytestmark = pytest.mark.e2e
JOB = "told-failed"


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _status(sandbox) -> str | None:
    status = job_view(sandbox, JOB)["status"]
    return status if status in ("Failed", "Succeeded") else None


def test_a_failed_job_is_told_once_at_the_webhook_with_the_link_to_it(sandbox, cluster):
    with webhook(sandbox, NAME, ["job-failed"]) as (receiver, path):
        assert submit(sandbox, custom_job(JOB, runPolicy={"jobMaxRetryCount": 1})).status_code == 200
        for step in (1, 2):  # two crashes and a budget of one retry: the operator fails the job
            sandbox.faults(jobFault={"cluster": NAME, "job": JOB, "kind": "processCrash", "atStep": step})
        assert wait_until(lambda: _status(sandbox), reason="the job never ended", interval=0.2) == "Failed"
        assert JOB in watch(sandbox)["told"][NAME]["job-failed"]
        subject = f"*Training job {JOB} failed on {NAME}*"
        [text] = wait_until(lambda: texts(receiver, path, subject), reason="no job-failed message at the webhook")
        assert "JobMaxRetryCountExceeded" in text
        assert text.endswith(f"{sandbox.url}/clusters/{NAME}?tab=jobs&job={JOB}")
        assert JOB not in watch(sandbox)["told"].get(NAME, {}).get("job-failed", [])
        assert len(texts(receiver, path, subject)) == 1
    with sandbox.client("operator") as c:
        assert c.delete(f"/api/clusters/{NAME}/jobs/{JOB}", params={"confirm": JOB}).status_code == 200
