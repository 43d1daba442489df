"""The emulator's pod log with timestamps=true and sinceTime, as the kubelet serves them: every line stamped
with fixed-width RFC3339Nano, lines written together share a stamp, sinceTime keeps the lines at or after
it (also with only its seconds), and sinceTime with sinceSeconds is a 400."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from kubernetes import client

from sandbox.kube import KubeFleet
from tests.sandbox.kube.test_kube_emulator import cluster, fleet  # noqa: F401  (fixtures)

_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z ")


@pytest.fixture
def pod(fleet: KubeFleet, cluster: tuple[str, client.ApiClient]) -> Iterator[client.CoreV1Api]:  # noqa: F811
    core = client.CoreV1Api(cluster[1])
    core.create_namespaced_pod(
        "default", {"metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    )
    fleet.call(cluster[0], lambda emu: emu.append_log("default", "p1", "one\ntwo\n", "c"))
    time.sleep(0.01)
    fleet.call(cluster[0], lambda emu: emu.append_log("default", "p1", "three\n", "c"))
    yield core


def _read(core: client.CoreV1Api, query: list[tuple[str, str]]) -> tuple[int, str]:
    api = core.api_client
    params = api.param_serialize(
        method="GET",
        resource_path="/api/v1/namespaces/default/pods/p1/log",
        query_params=query,
        header_params={"Accept": "text/plain"},
        auth_settings=["BearerToken"],
    )
    response = api.call_api(*params)
    response.read()
    return response.status, response.data.decode()


def test_timestamps_stamp_every_line_and_a_chunk_shares_its_stamp(pod: client.CoreV1Api) -> None:
    lines = pod.read_namespaced_pod_log("p1", "default", timestamps=True).splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["one", "two", "three"]
    assert all(_STAMP.match(line) for line in lines)
    stamps = [line.split(" ", 1)[0] for line in lines]
    assert stamps[0] == stamps[1] < stamps[2]


def test_since_time_keeps_the_lines_at_or_after_it(pod: client.CoreV1Api) -> None:
    stamps = [
        line.split(" ", 1)[0] for line in pod.read_namespaced_pod_log("p1", "default", timestamps=True).splitlines()
    ]
    newest = _read(pod, [("sinceTime", stamps[2]), ("timestamps", "true")])[1]
    assert newest.split(" ", 1)[1] == "three\n"
    everything = pod.read_namespaced_pod_log("p1", "default", since_seconds=None, timestamps=False)
    assert everything == "one\ntwo\nthree\n"
    seconds_only = stamps[0].split(".")[0] + "Z"  # a whole second at or before the first line
    again = _read(pod, [("sinceTime", seconds_only)])[1]
    assert again == "one\ntwo\nthree\n"


def test_since_time_with_since_seconds_is_a_bad_request(pod: client.CoreV1Api) -> None:
    status, text = _read(pod, [("sinceTime", "2026-01-01T00:00:00Z"), ("sinceSeconds", "10")])
    assert status == 400 and "sinceTime" in text
    status, text = _read(pod, [("sinceTime", "yesterday")])
    assert status == 400 and "RFC3339" in text
