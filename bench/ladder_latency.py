"""Benchmark: a HyperPod node-health event to the remediation ladder's recorded decision.

Each run injects a GPU fault into a different node of one sandbox cluster (node recovery off). The
sandbox puts HyperPod's node-health event pair on EventBridge at once; EventBridge invokes the
events-node-health handler, which folds the event into the node's incident and records the ladder's
decision (the suggested reboot). The latency is Launchpod's own time, on one clock: from the moment the
fault was injected (the event's emission) to the time the ladder stamped on its decision step. The goal
is 5 s or less.

    .venv/bin/python bench/ladder_latency.py [--time-scale 0.01] [--runs 5]
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import watch
from bench.harness import admin_client, arguments, running

GOAL_SECONDS = 5.0


def _wait(client: httpx.Client, op_id: str) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if client.get(f"/api/operations/{op_id}").json()["status"] in watch.DONE:
            return
        time.sleep(0.5)
    raise TimeoutError(op_id)


def decision_latency(client: httpx.Client, cluster: str, node_id: str) -> float:
    injected = datetime.now(UTC)
    client.post(
        "/api/sandbox/faults", json={"nodeFault": {"cluster": cluster, "nodeId": node_id, "kind": "gpu"}}
    ).raise_for_status()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        items = client.get(f"/api/clusters/{cluster}/incidents").json()["items"]
        incident = next((i for i in items if node_id in i["nodes"]), None)
        decided = [s for s in (incident or {}).get("steps", []) if s["mode"] in ("suggested", "ran")]
        if decided:
            return (datetime.fromisoformat(decided[0]["at"]) - injected).total_seconds()
        time.sleep(0.05)
    raise TimeoutError(f"no decision for {node_id}")


def main() -> int:
    args = arguments(__doc__, time_scale=0.01, runs=5).parse_args()
    with running(args.time_scale) as box:
        name = "bench-ladder"
        with admin_client(box) as client:
            op = client.post("/api/clusters", json={"name": name, "availabilityZones": ["us-east-1a", "us-east-1b"]})
            _wait(client, op.json()["operation"]["id"])
            # HyperPod's dependencies first (AWS requires them; without the health agent no fault is reported).
            _wait(client, client.post(f"/api/clusters/{name}/dependencies", json={}).json()["operation"]["id"])
            group = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": args.runs}
            body = {"availabilityZone": "us-east-1a", "instanceGroups": [group], "nodeRecovery": "None"}
            op = client.post(f"/api/clusters/{name}/hyperpod", json=body)
            _wait(client, op.json()["operation"]["id"])
            nodes = sorted(n["nodeId"] for n in client.get(f"/api/clusters/{name}/nodes").json()["items"])
            latencies = []
            for i, node_id in enumerate(nodes[: args.runs]):
                latency = decision_latency(client, name, node_id)
                latencies.append(latency)
                print(f"run {i}: {node_id} fault event -> decision recorded {latency:5.2f} s")
    median, worst = statistics.median(latencies), max(latencies)
    verdict = "within" if worst <= GOAL_SECONDS else "over"
    print(
        f"fault event -> decision recorded: median {median:.2f} s, max {worst:.2f} s over {len(latencies)} runs "
        f"({verdict} the {GOAL_SECONDS:.0f} s goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
