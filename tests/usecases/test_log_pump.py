"""The live log pump: every line reaches the subscribers once and in order, across hand-overs to its next
invocation, and it stops when the pod ends or nobody listens."""

from __future__ import annotations

from launchpod.domain.jobs.log_cursor import Cursor
from launchpod.usecases import log_pump

from tests.usecases.stream_fakes import Connections, Invokes, Leases, PodLog, Push, ports

TOPIC = "logs:c1/default/trainer-0"
LINES = [f"2026-12-01T12:00:0{i}.000000000Z step {i}" for i in range(6)]


def _pump(pod: PodLog, invokes: Invokes | None = None) -> tuple[log_pump.PumpPorts, Push, Leases]:
    stream = ports(invokes=invokes)
    assert isinstance(stream.connections, Connections) and isinstance(stream.push, Push)
    assert isinstance(stream.pumps, Leases)
    stream.connections.connect("c-1", "https://ws.example/prod", "alice")
    stream.connections.subscribe("c-1", [TOPIC])
    stream.pumps.acquire(TOPIC, "h-1")
    return log_pump.PumpPorts(stream=stream, logs=pod, sleep=lambda seconds: None), stream.push, stream.pumps


def _lines(push: Push) -> list[str]:
    return [line for m in push.to("c-1") for line in m["data"]["lines"]]


def test_the_pump_posts_the_log_and_ends_with_the_pod():
    p, push, leases = _pump(PodLog(LINES, phase="Succeeded"))
    answer = log_pump.pump(
        log_pump.Invocation(TOPIC, "h-1", Cursor()), log_pump.Lambda("pump", lambda: 60_000), ports=p
    )
    assert answer == {"topic": TOPIC, "stopped": "the pod Succeeded", "sent": 6, "handovers": 0}
    assert _lines(push) == [f"step {i}" for i in range(6)]
    assert push.to("c-1")[-1]["data"]["ended"] and leases.held == {}


def test_a_hand_over_carries_the_cursor_so_the_next_invocation_sends_only_new_lines():
    pod, invokes = PodLog(LINES[:3]), Invokes()
    p, push, leases = _pump(pod, invokes)
    deadlines = iter([60_000, 60_000, 100])  # the second round finds the deadline near
    answer = log_pump.pump(
        log_pump.Invocation(TOPIC, "h-1", Cursor()), log_pump.Lambda("pump", lambda: next(deadlines)), ports=p
    )
    assert answer == {"topic": TOPIC, "handedOver": True, "sent": 3, "handovers": 1}
    [(function, event)] = invokes.calls
    assert function == "pump" and event["holder"] == "h-1" and leases.held == {TOPIC: "h-1"}

    pod.lines, pod.phase = LINES, "Failed"
    run = log_pump.Invocation(TOPIC, event["holder"], Cursor.from_dict(event["cursor"]), event["container"], 1)
    log_pump.pump(run, log_pump.Lambda("pump", lambda: 60_000), ports=p)
    assert _lines(push) == [f"step {i}" for i in range(6)]
    assert push.to("c-1")[-1]["data"] == {
        "pod": "trainer-0",
        "container": "pytorch",
        "lines": [],
        "ended": True,
        "reason": "the pod Failed",
        "handovers": 1,
    }


def test_the_pump_stops_and_lets_go_of_its_lease_when_nobody_listens():
    p, push, leases = _pump(PodLog(LINES))
    p.stream.connections.disconnect("c-1")
    answer = log_pump.pump(
        log_pump.Invocation(TOPIC, "h-1", Cursor()), log_pump.Lambda("pump", lambda: 60_000), ports=p
    )
    assert answer["stopped"] == "no subscribers" and leases.held == {} and push.posted == []
