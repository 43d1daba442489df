"""Benchmark: a training pod's log line to a WebSocket client, through the live log pump.

A sandbox (its own process, as ``make sandbox`` runs it) gets a cluster with the training operator; a
pytorch job's pods write ``--lines-per-step`` lines every ``--interval`` simulated seconds (the sandbox's
``jobLogLinesPerStep`` and ``jobLogIntervalSeconds``), each stamped with the wall time it was written. One
WebSocket client subscribes to the pod's ``logs:`` topic and reads until the pump says the pod ended.
Printed: the line → client latency p50/p95/max of the lines written after the client subscribed (goal p95
<= 1 s; the pod's earlier lines come first as a backlog), the sustained rate the client received
(lines from its first to its last log message; goal >= 5,000 lines/s), the rate the pod wrote, and the
pump's hand-overs (``--pump-timeout`` makes its Lambda timeout small to force some). Figures are printed,
never asserted.

    .venv/bin/python bench/log_stream.py [--time-scale 0.005] [--lines-per-step 100] [--interval 2] [--steps 800]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]

from tests.sandbox.conftest import start_sandbox  # noqa: E402
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit  # noqa: E402

_WRITTEN = re.compile(r" t=(\d+\.\d+)$")


def _running_pod(box, job: str) -> str:
    deadline = time.monotonic() + 60
    with box.client("viewer") as c:
        while time.monotonic() < deadline:
            pods = c.get(f"/api/clusters/{NAME}/jobs/{job}").json().get("pods") or []
            running = sorted(p["name"] for p in pods if p["phase"] == "Running")
            if running:
                return running[0]
            time.sleep(0.02)
    raise SystemExit(f"no pod of {job} ran")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-scale", default="0.005")
    parser.add_argument("--lines-per-step", type=int, default=100)
    parser.add_argument("--interval", type=float, default=2.0, help="simulated seconds between steps")
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--pump-timeout", type=int, default=300, help="the log-pump Lambda's timeout (s)")
    args = parser.parse_args()
    from websockets.sync.client import connect

    with start_sandbox(args.time_scale) as box:
        print("provisioning a cluster with the training operator ...", flush=True)
        ready_cluster(box)
        box.aws("lambda").update_function_configuration(FunctionName="launchpod-log-pump", Timeout=args.pump_timeout)
        box.faults(jobLogIntervalSeconds=args.interval, jobSteps=args.steps, jobLogLinesPerStep=args.lines_per_step)
        assert submit(box, custom_job("bench")).status_code == 200
        pod = _running_pod(box, "bench")
        topic = f"logs:{NAME}/default/{pod}"
        latencies: list[float] = []
        written: list[float] = []
        lines = 0
        first = last = 0.0
        ended: dict = {}
        url = box.url.replace("http://", "ws://") + f"/ws?token={box.tokens['viewer']}"
        backlog = 0
        with connect(url, max_size=2**22) as ws:
            ws.send(json.dumps({"action": "subscribe", "topics": [topic]}))
            subscribed = time.time()  # lines written before this are backlog, not live latency
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                message = json.loads(ws.recv(timeout=120))
                if message.get("topic") != topic:
                    continue
                now = time.time()
                batch = message["data"]["lines"]
                if batch:
                    first = first or now
                    last = now
                    lines += len(batch)
                for line in batch:
                    match = _WRITTEN.search(line)
                    if match:
                        at = float(match.group(1))
                        written.append(at)
                        if at >= subscribed:
                            latencies.append(now - at)
                        else:
                            backlog += 1
                if message["data"].get("ended"):
                    ended = message["data"]
                    break
    if not latencies:
        raise SystemExit("no stamped line arrived")
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    received = lines / (last - first) if last > first else float("nan")
    produced = len(written) / (max(written) - min(written)) if len(written) > 1 else float("nan")
    print(
        f"lines received            {lines}  (the pod wrote {args.steps * args.lines_per_step}; {backlog} before the "
        "subscription, sent first and left out of the latency)"
    )
    print(
        f"line -> client latency    p50 {statistics.median(latencies) * 1000:.0f} ms  "
        f"p95 {p95 * 1000:.0f} ms  max {latencies[-1] * 1000:.0f} ms  (goal p95 <= 1000 ms)"
    )
    print(f"sustained lines/s         {received:,.0f} received  (goal >= 5,000); the pod wrote {produced:,.0f}/s")
    print(
        f"pump hand-overs           {ended.get('handovers')}  (pump timeout {args.pump_timeout} s); "
        f"{ended.get('reason')}"
    )


if __name__ == "__main__":
    main()
