"""ShippedLogs' contract: the in-memory fake (tests/fakes/logs.py) and adapters.aws.logs on moto's CloudWatch Logs
with the sandbox's JSON filter patterns answer alike for the patterns the job-log use case sends
(observability.pod_filter): a log group never created, one pod's last lines oldest first (not another
namespace's, container's or pod's), a job's pods by a name wildcard (the first by name), and a start time."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from launchpod.adapters.aws.logs import Logs
from launchpod.domain import observability
from launchpod.usecases.ports import ShippedLogs as Port

from tests.fakes.logs import ShippedLogs

GROUP = observability.log_group("c1")
NOW = int(time.time() * 1000)  # CloudWatch Logs refuses events older than 14 days
# The port; how a line is shipped (at ms, line, namespace, pod, container).
Side = tuple[Port, Callable[[int, str, str, str, str], None]]


@pytest.fixture(params=["fake", "cloudwatch"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "fake":
        fake = ShippedLogs()
        yield fake, lambda at, line, ns, pod, container: fake.ship(GROUP, at, line, ns, pod, container)
        return
    logs = request.getfixturevalue("client")("logs")
    created: set[str] = set()

    def ship(at: int, line: str, namespace: str, pod: str, container: str) -> None:
        # Fluent Bit's cloudwatch_logs output: one stream per pod and container, the record as JSON
        stream = f"{pod}_{namespace}_{container}"
        if not created:
            logs.create_log_group(logGroupName=GROUP)
        if stream not in created:
            logs.create_log_stream(logGroupName=GROUP, logStreamName=stream)
            created.add(stream)
        meta = {"namespace_name": namespace, "pod_name": pod, "container_name": container}
        message = json.dumps({"log": line + "\n", "kubernetes": meta})
        logs.put_log_events(logGroupName=GROUP, logStreamName=stream, logEvents=[{"timestamp": at, "message": message}])

    yield Logs(), ship


def _read(port: Any, pod: str, container: str | None = None, tail: int = 50, start: int | None = None) -> Any:
    return port.container_lines(GROUP, observability.pod_filter("default", pod, container), tail, start)


def test_a_log_group_never_created_has_no_lines(side: Side) -> None:
    assert _read(side[0], "j-pods-0") is None


def test_one_pods_last_lines_come_oldest_first_and_no_one_elses(side: Side) -> None:
    port, ship = side
    for i in range(5):
        ship(NOW - 5000 + i, f"step {i}", "default", "j-pods-0", "pytorch")
    ship(NOW - 4000, "other namespace", "research", "j-pods-0", "pytorch")
    ship(NOW - 4000, "other pod", "default", "k-pods-0", "pytorch")
    found = _read(port, "j-pods-0", tail=3)
    assert found is not None
    assert (found.pod, found.container, found.lines) == ("j-pods-0", "pytorch", ["step 2", "step 3", "step 4"])
    assert _read(port, "j-pods-9") is None


def test_a_container_is_chosen_by_its_name(side: Side) -> None:
    port, ship = side
    ship(NOW - 3000, "main line", "default", "j-pods-0", "pytorch")
    ship(NOW - 2000, "sidecar line", "default", "j-pods-0", "sidecar")
    found = _read(port, "j-pods-0", "sidecar")
    assert found is not None and (found.container, found.lines) == ("sidecar", ["sidecar line"])


def test_a_jobs_pods_by_a_name_wildcard_answer_the_first_pod_by_name(side: Side) -> None:
    port, ship = side
    ship(NOW - 3000, "replica one", "default", "j-pods-1", "pytorch")
    ship(NOW - 2000, "replica zero", "default", "j-pods-0", "pytorch")
    ship(NOW - 1000, "another job", "default", "k-pods-0", "pytorch")
    found = _read(port, "j-*")
    assert found is not None and (found.pod, found.lines) == ("j-pods-0", ["replica zero"])


def test_a_start_time_leaves_out_older_lines(side: Side) -> None:
    port, ship = side
    ship(NOW - 60_000, "a minute ago", "default", "j-pods-0", "pytorch")
    ship(NOW - 1000, "just now", "default", "j-pods-0", "pytorch")
    found = _read(port, "j-pods-0", start=NOW - 10_000)
    assert found is not None and found.lines == ["just now"]
    assert _read(port, "j-pods-0", start=NOW) is None
