"""Benchmark: create-control-plane in the sandbox, against its simulated critical path.

The critical path is what AWS itself makes you wait for: EKS CreateCluster to ACTIVE (600
simulated seconds in the sandbox) plus the slowest core add-on to settle (60 simulated
seconds). At a time scale s, that is (600 + 60) * s real seconds. The ratio wall / critical path
says how much Launchpod's own orchestration (Lambda calls, polls, records) adds on top; the
number of state transitions says how chatty the workflow is.

    .venv/bin/python bench/create_control_plane.py [--time-scale 0.02] [--runs 3]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import boto3
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import watch
from bench.harness import admin_client, arguments, running
from sandbox.runtime import Sandbox

EKS_SIM_SECONDS = 600
ADDON_SIM_SECONDS = 60


def run_once(box: Sandbox, client: httpx.Client, name: str) -> tuple[float, int, str]:
    started = time.monotonic()
    response = client.post("/api/clusters", json={"name": name, "availabilityZones": ["us-east-1a", "us-east-1b"]})
    response.raise_for_status()
    op_id = response.json()["operation"]["id"]
    view = watch.wait_for(watch.subscribe(box.url, box.tokens.token_for("viewer"), op_id), client, op_id)
    wall = time.monotonic() - started
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    arn = box.provisioned.state_machines["create-control-plane"].replace(":stateMachine:", ":execution:")
    events = sfn.get_execution_history(executionArn=f"{arn}:{op_id}", maxResults=1000)["events"]
    transitions = sum(1 for e in events if e["type"].endswith("StateEntered"))
    return wall, transitions, view["status"]


def main() -> int:
    args = arguments(__doc__, time_scale=0.02, runs=3).parse_args()
    with running(args.time_scale) as box:
        critical = (EKS_SIM_SECONDS + ADDON_SIM_SECONDS) * args.time_scale
        rows = []
        with admin_client(box) as client:
            for i in range(args.runs):
                wall, transitions, status = run_once(box, client, f"bench-{i}")
                rows.append((wall, transitions))
                print(
                    f"run {i}: {status} wall {wall:6.2f} s  critical path {critical:6.2f} s  "
                    f"ratio {wall / critical:5.2f}  state transitions {transitions}"
                )
    walls = [w for w, _ in rows]
    print(
        f"time scale {args.time_scale}: median wall {statistics.median(walls):.2f} s over a simulated "
        f"critical path of {critical:.2f} s -> ratio {statistics.median(walls) / critical:.2f}; "
        f"state transitions per run {rows[0][1]}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
