"""Benchmark: HyperPod-managed Karpenter in the sandbox, a pending GPU pod to a Ready node from zero.

What AWS makes you wait for is HyperPod adding a node (the sandbox's ``scale_up``, 600 simulated
seconds). The ratio (pending pod -> node Ready) / add-node time says how much the rest adds on top:
Karpenter's batch window and reaction, BatchAddClusterNodes, the node joining and being registered.
Goal: <= 1.05. Each run then deletes the pod's Deployment and waits for the group to return to zero.

    .venv/bin/python bench/karpenter_scale_up.py [--time-scale 0.02] [--runs 3]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import admin_client, arguments, running
from sandbox.aws import sagemaker as hyperpod
from sandbox.runtime import Sandbox
from tests.sandbox.clusters import cluster_body
from tests.sandbox.workloads import gpu_deployment

NAME = "bench-karpenter"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"


def _wait(client: httpx.Client, response: httpx.Response) -> None:
    response.raise_for_status()
    op = response.json()["operation"]["id"]
    while (view := client.get(f"/api/operations/{op}").json())["status"] not in ("SUCCEEDED", "FAILED", "CANCELLED"):
        time.sleep(0.2)
    if view["status"] != "SUCCEEDED":
        raise SystemExit(f"{view['kind']} {view['status']}: {view.get('message')}")


def _ready_gpu_nodes(box: Sandbox) -> int:
    nodes = box.fleet.call(NAME, lambda emu: emu.list_objects("v1/nodes"))
    return sum(
        1
        for n in nodes
        if (n["metadata"].get("labels") or {}).get(GROUP_LABEL) == "gpu"
        and any(c["type"] == "Ready" and c["status"] == "True" for c in (n.get("status") or {}).get("conditions", []))
    )


def _gpu_nodes(box: Sandbox) -> int:
    nodes = box.fleet.call(NAME, lambda emu: emu.list_objects("v1/nodes"))
    return sum(1 for n in nodes if (n["metadata"].get("labels") or {}).get(GROUP_LABEL) == "gpu")


def run_once(box: Sandbox) -> float:
    async def create(emu: Any) -> None:
        await emu.put_object("apps/v1/deployments", gpu_deployment(1))

    async def delete(emu: Any) -> None:
        await emu.delete_object("apps/v1/deployments", "default", "gpu-app")

    started = time.monotonic()
    box.fleet.call(NAME, create)
    while _ready_gpu_nodes(box) < 1:
        time.sleep(0.01)
    elapsed = time.monotonic() - started
    box.fleet.call(NAME, delete)
    while _gpu_nodes(box):
        time.sleep(0.05)
    return elapsed


def main() -> int:
    args = arguments(__doc__, time_scale=0.02, runs=3).parse_args()
    with running(args.time_scale) as box:
        add_node = hyperpod.describe_durations()["scale_up"] * args.time_scale
        # Karpenter needs continuous provisioning, which a cluster gets only at creation.
        system = {"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1}
        body = cluster_body(NAME, system, nodeProvisioningMode="Continuous")
        with admin_client(box) as client:
            _wait(client, client.post("/api/clusters/provision", json=body))
            group = {"group": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 0}
            _wait(client, client.post(f"/api/clusters/{NAME}/instance-groups", json=group))
            scaling = {"enabled": True, "groups": ["gpu"], "consolidateAfterSeconds": 0}
            _wait(client, client.put(f"/api/clusters/{NAME}/autoscaling", json=scaling))
            ratios = []
            for i in range(args.runs):
                elapsed = run_once(box)
                ratios.append(elapsed / add_node)
                print(
                    f"run {i}: pending pod -> node Ready {elapsed:6.2f} s  simulated add-node time {add_node:6.2f} s  "
                    f"ratio {elapsed / add_node:5.3f}"
                )
    print(
        f"time scale {args.time_scale}: median ratio {statistics.median(ratios):.3f} over {args.runs} runs "
        "(goal <= 1.05); the group returned to zero after each run"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
