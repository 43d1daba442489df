"""Live logs over the WebSocket: two clients subscribed to a running training pod's logs topic each receive
every line from their subscription on, exactly once and in order, while the pump hands over to its next
invocation several times (its Lambda timeout made small, as a deployment could set it), then an ``ended``
message once the pod is done."""

from __future__ import annotations

import json
import time

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit

pytestmark = pytest.mark.e2e
PUMP = "launchpod-log-pump"


def _running_pod(sandbox, job: str, timeout: float = 90) -> str:
    with sandbox.client("viewer") as c:

        def running() -> list[str]:
            pods = c.get(f"/api/clusters/{NAME}/jobs/{job}").json().get("pods") or []
            return sorted(p["name"] for p in pods if p["phase"] == "Running")

        return str(wait_until(running, timeout, reason=f"no pod of {job} ran")[0])


def _subscribed(ws, topic: str) -> list[dict]:
    """Wait for the reply to a subscribe (the connection gets ``topic`` from then on); what the pump posted
    before the reply arrived is handed back to be read first."""
    early = []
    while True:
        message = json.loads(ws.recv(timeout=30))
        if message.get("type") == "subscribed":
            assert topic in message["data"]["topics"], message
            return early
        early.append(message)


def _follow(ws, topic: str, early: list[dict], timeout: float = 90) -> tuple[list[str], dict]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = early.pop(0) if early else json.loads(ws.recv(timeout=deadline - time.monotonic()))
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
    # ~20 s of training: a pump that starts late under load (a cold start on a busy machine) still hands over
    # several times before the pod ends (it handed over once only when the job ran ~8 s)
    sandbox.faults(jobLogIntervalSeconds=20, jobSteps=200, jobLogLinesPerStep=5)
    try:
        assert submit(sandbox, custom_job("live")).status_code == 200
        pod = _running_pod(sandbox, "live")
        topic = f"logs:{NAME}/default/{pod}"
        url = sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}"
        with connect(url) as first, connect(url) as second:
            # The pump starts with the first subscription and posts to whoever is subscribed then: the
            # second client, subscribed once the first is, may miss the lines posted in between (a client
            # reads those with GET .../logs), never one after it joined.
            early = []
            for ws in (first, second):
                ws.send(json.dumps({"action": "subscribe", "topics": [topic]}))
                early.append(_subscribed(ws, topic))
            got_first, ended = _follow(first, topic, early[0])
            got_second, _ = _follow(second, topic, early[1])
    finally:
        lam.update_function_configuration(FunctionName=PUMP, Timeout=300)
        sandbox.faults(jobLogIntervalSeconds=10, jobSteps=40, jobLogLinesPerStep=1)

    with sandbox.client("viewer") as c:
        whole = c.get(f"/api/clusters/{NAME}/jobs/live/logs", params={"pod": pod, "tail": 5000}).json()["lines"]
    assert len(whole) > 400 and whole[-1].endswith("training complete; final checkpoint written")
    assert got_first == whole, (len(got_first), len(whole))
    assert len(got_second) > len(whole) // 2 and got_second == whole[-len(got_second) :], (len(got_second), len(whole))
    assert ended["reason"] == "the pod Succeeded"
    assert ended["handovers"] >= 2, ended
