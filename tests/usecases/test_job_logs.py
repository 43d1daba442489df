"""A gone pod's log: from CloudWatch Logs when the observability add-on is installed (source cloudwatch),
otherwise not retained with the PATCH that turns observability on; and when nothing was shipped, not
retained with why."""

from __future__ import annotations

from launchpod.domain.observability import ShippedLines
from launchpod.usecases.job_logs import LogRead, deleted_job_logs, gone_pod_logs

from tests.fakes.eks import Eks
from tests.fakes.logs import ShippedLogs

ADDON = "amazon-cloudwatch-observability"
JOB = LogRead("c1", "default", "j", None, None, 50, None)


def _read(addons: dict, found: ShippedLines | None, pod: str | None = "j-pods-0", since: int | None = None):
    logs = ShippedLogs(found)
    ask = LogRead("c1", "default", "j", pod, None, 50, since)
    view = gone_pod_logs(ask, eks=Eks(addons={"c1": addons}), logs=logs, others=["j-pods-1"])
    return view, logs.asked


def test_with_observability_off_the_log_is_not_retained_and_the_note_says_how_to_keep_the_next_ones():
    view, asked = _read({}, None)
    assert (view.retained, view.source, view.lines) == (False, None, [])
    assert "observability is off" in (view.note or "") and "j-pods-1" in (view.note or "")
    assert asked == []


def test_with_observability_on_the_pods_lines_come_from_its_application_log_group():
    view, asked = _read({ADDON: {"status": "ACTIVE"}}, ShippedLines("j-pods-0", "pytorch", ["a", "b"]))
    assert (view.retained, view.source, view.pod, view.container, view.lines) == (
        True,
        "cloudwatch",
        "j-pods-0",
        "pytorch",
        ["a", "b"],
    )
    group, pattern, tail, start = asked[0]
    assert (group, tail, start) == ("/aws/containerinsights/c1/application", 50, None)
    assert '$.kubernetes.pod_name = "j-pods-0"' in pattern


def test_without_a_pod_name_the_jobs_pods_are_matched_by_their_name_prefix_and_since_bounds_the_read():
    _, asked = _read({ADDON: {"status": "ACTIVE"}}, None, pod=None, since=60)
    _, pattern, _, start = asked[0]
    assert '$.kubernetes.pod_name = "j-*"' in pattern and start is not None


def test_nothing_shipped_is_not_retained_saying_only_lines_written_while_it_runs_are_kept():
    view, _ = _read({ADDON: {"status": "ACTIVE"}}, None)
    assert (view.retained, view.source) == (False, None)
    assert "ships only what containers write while it runs" in (view.note or "")


def test_a_deleted_jobs_log_comes_back_from_cloudwatch_saying_the_job_is_deleted():
    found = ShippedLines("j-pods-0", "pytorch", ["done"])
    view = deleted_job_logs(JOB, eks=Eks(addons={"c1": {ADDON: {"status": "ACTIVE"}}}), logs=ShippedLogs(found))
    assert view is not None and (view.retained, view.lines, view.source) == (True, ["done"], "cloudwatch")
    assert "the job is deleted" in (view.note or "")


def test_a_deleted_jobs_log_that_was_never_shipped_is_none_so_the_job_is_not_found():
    on = Eks(addons={"c1": {ADDON: {"status": "ACTIVE"}}})
    assert deleted_job_logs(JOB, eks=on, logs=ShippedLogs(None)) is None
    assert deleted_job_logs(JOB, eks=Eks(addons={"c1": {}}), logs=ShippedLogs(None)) is None
