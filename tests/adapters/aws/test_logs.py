"""The CloudWatch Logs adapter against moto (with the sandbox's JSON filter patterns): one pod's container
lines read back from Container Insights' records, the last ``tail`` of them, from ``startTime`` on; None
when the log group or any matching event is missing."""

from __future__ import annotations

import json
import time

import boto3
import pytest
from launchpod.adapters.aws.logs import Logs
from launchpod.domain import observability

from sandbox.aws.logs import filters as logs_filters

GROUP = "/aws/containerinsights/c1/application"


@pytest.fixture
def logs(aws):
    logs_filters.install()
    client = boto3.client("logs", region_name="us-east-1")
    client.create_log_group(logGroupName=GROUP)
    return client


def _put(client, pod: str, lines: list[str], at_ms: int, container: str = "pytorch") -> None:
    stream = f"node-1-application.var.log.containers.{pod}_default_{container}-{'a' * 64}.log"
    if not client.describe_log_streams(logGroupName=GROUP, logStreamNamePrefix=stream)["logStreams"]:
        client.create_log_stream(logGroupName=GROUP, logStreamName=stream)
    meta = {"pod_name": pod, "namespace_name": "default", "container_name": container}
    events = [
        {"timestamp": at_ms + i, "message": json.dumps({"log": line + "\n", "stream": "stdout", "kubernetes": meta})}
        for i, line in enumerate(lines)
    ]
    client.put_log_events(logGroupName=GROUP, logStreamName=stream, logEvents=events)


def test_one_pods_last_lines_come_back_without_other_pods_lines(logs):
    now = int(time.time() * 1000)
    _put(logs, "j-pods-0", ["step 1", "step 2", "step 3"], now)
    _put(logs, "j-pods-1", ["other"], now)

    found = Logs().container_lines(GROUP, observability.pod_filter("default", "j-pods-0", "pytorch"), tail=2)

    assert found is not None
    assert (found.pod, found.container, found.lines) == ("j-pods-0", "pytorch", ["step 2", "step 3"])


def test_a_wildcard_pod_reads_the_first_pod_by_name(logs):
    now = int(time.time() * 1000)
    _put(logs, "j-pods-1", ["second"], now)
    _put(logs, "j-pods-0", ["first"], now)
    _put(logs, "other-pods-0", ["not this job"], now)

    found = Logs().container_lines(GROUP, observability.pod_filter("default", "j-*", None), tail=10)

    assert found is not None and (found.pod, found.lines) == ("j-pods-0", ["first"])


def test_start_time_leaves_out_older_lines(logs):
    now = int(time.time() * 1000)
    _put(logs, "j-pods-0", ["old"], now - 600_000)
    _put(logs, "j-pods-0", ["new"], now)

    found = Logs().container_lines(GROUP, observability.pod_filter("default", "j-pods-0", None), 10, now - 60_000)

    assert found is not None and found.lines == ["new"]


def test_nothing_shipped_or_no_log_group_is_none(logs):
    adapter = Logs()
    assert adapter.container_lines(GROUP, observability.pod_filter("default", "gone", None), tail=5) is None
    assert adapter.container_lines("/aws/containerinsights/none/application", "{ $.a = 1 }", tail=5) is None
