"""Benchmark: provision-cluster in the sandbox, against its simulated critical path.

What AWS makes you wait for, in simulated seconds: EKS to ACTIVE (600), then the core add-ons
(60), then the dependencies' add-ons (60: HyperPod's health agent and device plugins must be on the
cluster before its nodes join, so they no longer overlap HyperPod), then HyperPod to InService (900);
the Deployment add-ons turn ACTIVE as soon as the nodes join, and HyperPod's lifecycle scripts,
execution role, compute subnet and security group are made while EKS is being created. At a time
scale s that path takes (600 + 60 + 60 + 900) * s real seconds. The ratio
wall / critical path says how much Launchpod adds on top (Lambda calls, polls that land after the
moment, records); the goal is at most 1.05. The end is seen as a console sees it, pushed over the
WebSocket (bench/watch.py), so the benchmark does not spend the sandbox's CPU on polling.

Launchpod's own work is real time (the sandbox runs every Lambda, and AWS's emulation, in one Python process)
while AWS's is simulated, so the smaller the time scale, the more that work weighs. Given two or more scales
(``--time-scales 0.05,0.1``, the default) the benchmark fits wall = a + B * scale over the runs: ``a`` is the
real seconds of Launchpod's own work (and the sandbox's), ``B`` the simulated seconds of the path as Launchpod
walks it (AWS's waits plus polls that land after the moment). It prints the ratio measured at each scale and
the ratio at AWS's own timings (scale 1), (a + B) / path, which is what a user on AWS waits over what AWS
makes them wait; the goal is at most 1.05.

    .venv/bin/python bench/provision_cluster.py [--time-scales 0.05,0.1] [--runs 1] [--iam-overhead]

With ``--environments-overhead`` (one scale) the runs alternate between every function in execution
environments of its own (processes, as Lambda runs it) and every handler in the sandbox's process, in one
sandbox, and the benchmark prints wall(environments) / wall(in-process); the goal is at most 1.3.

With ``--iam-overhead`` (one scale) the runs alternate between IAM evaluation on and off (the sandbox's
``--no-iam``), in one process, and the benchmark prints wall(IAM on) / wall(IAM off) and the time
the IAM gate itself spent per call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import watch
from bench.harness import admin_client
from sandbox.runtime import Sandbox, free_port
from tests.sandbox.clusters import P5_GROUP, cluster_body

CRITICAL_SIM_SECONDS = 600 + 60 + 60 + 900
SERIAL_SIM_SECONDS = 600 + 60 + 60 + 900  # the same work with nothing overlapped (HyperPod's preparation is short)


def run_once(box: Sandbox, client: httpx.Client, name: str) -> tuple[float, str]:
    body = cluster_body(name, {**P5_GROUP, "instanceCount": 2})
    started = time.monotonic()
    response = client.post("/api/clusters/provision", json=body)
    response.raise_for_status()
    op_id = response.json()["operation"]["id"]
    view = watch.wait_for(watch.subscribe(box.url, box.tokens.token_for("viewer"), op_id), client, op_id)
    return time.monotonic() - started, view["status"]


def measure(scale: float, runs: int, iam_overhead: bool, environments_overhead: bool = False) -> list[float]:
    """Walls of ``runs`` provisions at one time scale (IAM on), in a sandbox of their own."""
    box = Sandbox(time_scale=scale, port=free_port()).start()
    critical = CRITICAL_SIM_SECONDS * scale
    walls: list[float] = []
    by_iam: dict[bool, list[float]] = {True: [], False: []}
    by_env: dict[bool, list[float]] = {True: [], False: []}
    with admin_client(box) as client:
        for i in range(runs * (2 if iam_overhead or environments_overhead else 1)):
            iam_on = not iam_overhead or i % 2 == 0
            envs_on = not environments_overhead or i % 2 == 0
            box.iam.set_enabled(iam_on)
            box.set_execution_environments(envs_on)
            wall, status = run_once(box, client, f"bench-{i}")
            by_iam[iam_on].append(wall)
            by_env[envs_on].append(wall)
            if iam_on:
                walls.append(wall)
            print(
                f"scale {scale}: run {i}: {status} IAM {'on ' if iam_on else 'off'} "
                f"{'environments' if envs_on else 'in-process  '} wall {wall:6.1f} s  "
                f"critical path {critical:6.1f} s  ratio {wall / critical:5.2f}",
                flush=True,
            )
    report = box.iam.report()
    colds = box.lambdas.report()["coldStarts"] if box.lambdas else []
    box.stop()
    if environments_overhead:
        on, off = statistics.median(by_env[True]), statistics.median(by_env[False])
        init = sorted(c["initSeconds"] for c in colds)
        print(
            f"execution environments: median wall {on:.1f} s / in-process {off:.1f} s = {on / off:.3f} (goal <= 1.3); "
            f"{len(init)} cold starts, median {statistics.median(init) if init else 0:.2f} s each"
        )
    if iam_overhead:
        on, off = statistics.median(by_iam[True]), statistics.median(by_iam[False])
        gate = report["cost"]
        print(
            f"IAM evaluation: median wall on {on:.1f} s / off {off:.1f} s = {on / off:.3f}; the gate authorized "
            f"{gate['calls']} calls in {gate['seconds']:.2f} s ({gate['microsecondsPerCall']:.0f} us per call), "
            f"denied {report['totals']['denied']}"
        )
    return walls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-scales", default="0.05,0.1", help="comma-separated; two or more give the fit")
    parser.add_argument("--runs", type=int, default=1, help="runs per scale")
    parser.add_argument("--iam-overhead", action="store_true", help="alternate IAM evaluation on and off")
    parser.add_argument(
        "--environments-overhead", action="store_true", help="alternate execution environments and in-process"
    )
    args = parser.parse_args()
    scales = [float(s) for s in args.time_scales.split(",")]
    points = [
        (scale, wall)
        for scale in scales
        for wall in measure(scale, args.runs, args.iam_overhead, args.environments_overhead)
    ]
    for scale in scales:
        median = statistics.median(w for s, w in points if s == scale)
        critical = CRITICAL_SIM_SECONDS * scale
        print(
            f"time scale {scale}: median wall {median:.1f} s / simulated critical path {critical:.1f} s "
            f"= {median / critical:.3f} (all work in series would be {SERIAL_SIM_SECONDS / CRITICAL_SIM_SECONDS:.2f})"
        )
    if len(scales) > 1:
        fit = statistics.linear_regression([s for s, _ in points], [w for _, w in points])
        own, path = fit.intercept, fit.slope
        print(
            f"fit wall = {own:.1f} s + {path:.0f} s x scale: Launchpod's (and the sandbox's) own work "
            f"{own:.1f} real s; "
            f"the path as walked {path:.0f} simulated s against AWS's {CRITICAL_SIM_SECONDS} s "
            f"({path / CRITICAL_SIM_SECONDS:.3f})"
        )
        at_aws = (own + path) / CRITICAL_SIM_SECONDS
        print(f"at AWS's timings (scale 1): wall / critical path = {at_aws:.3f} (goal <= 1.05)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
