"""Live logs over the WebSocket: two clients subscribed to a running training pod's logs topic each receive
every line exactly once, in order, while the pump hands over to its next invocation several times (its
Lambda timeout made small, as a deployment could set it), then an ``ended`` message once the pod is done."""

from __future__ import annotations

import json
import time

import pytest

from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit

pytestmark = pytest.mark.e2e
PUMP = "launchpod-log-pump"


def _running_pod(sandbox, job: str, timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    with sandbox.client("viewer") as c:
        while time.monotonic() < deadline:
            pods = c.get(f"/api/clusters/{NAME}/jobs/{job}").json().get("pods") or []
            running = [p["name"] for p in pods if p["phase"] == "Running"]
            if running:
                return sorted(running)[0]
            time.sleep(0.05)
    raise AssertionError(f"no pod of {job} ran")


def _follow(ws, topic: str, timeout: float = 90) -> tuple[list[str], dict]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=deadline - time.monotonic()))
        if message.get("topic") != topic:
            continue
        assert message["type"] == "log", message
        lines.extend(message["data"]["lines"])
        if message["data"].get("ended"):
            return lines, message["data"]
    raise AssertionError(f"the stream never ended; {len(lines)} lines so far")


def test_two_clients_get_every_line_once_across_pump_hand_overs(sandbox):
    from websockets.sync.client import connect

    ready_cluster(sandbox)
    lam = sandbox.aws("lambda")
    lam.update_function_configuration(FunctionName=PUMP, Timeout=3)  # hands over about every 1.5 s
    sandbox.faults(jobLogIntervalSeconds=20, jobSteps=80, jobLogLinesPerStep=5)  # ~8 s of training
    try:
        assert submit(sandbox, custom_job("live")).status_code == 200
        pod = _running_pod(sandbox, "live")
        topic = f"logs:{NAME}/default/{pod}"
        url = sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}"
        with connect(url) as first, connect(url) as second:
            for ws in (first, second):
                ws.send(json.dumps({"action": "subscribe", "topics": [topic]}))
            got_first, ended = _follow(first, topic)
            got_second, _ = _follow(second, topic)
    finally:
        lam.update_function_configuration(FunctionName=PUMP, Timeout=300)
        sandbox.faults(jobLogIntervalSeconds=10, jobSteps=40, jobLogLinesPerStep=1)

    with sandbox.client("viewer") as c:
        whole = c.get(f"/api/clusters/{NAME}/jobs/live/logs", params={"pod": pod, "tail": 5000}).json()["lines"]
    assert len(whole) > 400 and whole[-1].endswith("training complete; final checkpoint written")
    assert got_first == whole, (len(got_first), len(whole))
    assert got_second == whole, (len(got_second), len(whole))
    assert ended["reason"] == "the pod Succeeded"
    assert ended["handovers"] >= 2, ended
