"""Benchmark: the emulated API server's store under the simulated controllers, as the sandbox runs them all day.

Every 0.2 s the workload controllers read a cluster's Nodes, Deployments, DaemonSets, Pods and claims and write
back what changed; every read is a deep copy of each object listed. With a few clusters holding their add-ons'
DaemonSets, some Deployments and the Events that pile up, that pass was half of the sandbox's CPU in the test
suite (py-spy over a sandbox the suite was using: ``list_objects`` 49%, ``copy.deepcopy`` 36% of it).

This times one controller pass (``sandbox.controllers.workloads._reconcile``) over one cluster of 4 GPU nodes,
12 DaemonSets, 8 Deployments, 40 ConfigMaps and 400 Events, as the store is now (a pickle round trip for each
copy, each resource's objects found without walking the others) and as it was (``copy.deepcopy``, every object
walked for every list), alternating the two in the same run, and prints the CPU per pass and the ratio.

    .venv/bin/python bench/kube_store.py [--runs 5] [--passes 100]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.controllers.workloads import _reconcile
from sandbox.kube import store
from tests.sandbox.kube.support import one_cluster, put, ready_node

CLUSTER = "bench-store"


def _container(name: str) -> dict[str, Any]:
    env = [{"name": f"E{i}", "value": "x"} for i in range(6)]
    return {"name": name, "image": f"registry.example/{name}:1", "env": env}


def _workload(kind: str, name: str, namespace: str, replicas: int | None = None) -> dict[str, Any]:
    labels = {"app": name}
    spec: dict[str, Any] = {
        "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [_container(name)]}},
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def _scene(fleet: Any) -> None:
    for i in range(4):
        labels = {"node.kubernetes.io/instance-type": "ml.p5.48xlarge", "kubernetes.io/hostname": f"node-{i}"}
        put(fleet, CLUSTER, "v1/nodes", ready_node(f"node-{i}", labels, {"cpu": "192", "nvidia.com/gpu": "8"}))
    for i in range(12):
        put(fleet, CLUSTER, "apps/v1/daemonsets", _workload("DaemonSet", f"agent-{i}", "kube-system"))
    for i in range(8):
        put(fleet, CLUSTER, "apps/v1/deployments", _workload("Deployment", f"app-{i}", "default", replicas=2))
    for i in range(40):
        cm = {"metadata": {"name": f"cm-{i}", "namespace": "default"}, "data": {"k": "v" * 200}}
        put(fleet, CLUSTER, "v1/configmaps", cm)
    for i in range(400):
        event = {
            "metadata": {"name": f"e-{i}", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": f"p-{i}", "namespace": "default"},
            "reason": "Scheduled",
            "message": "Successfully assigned default/p to node-0",
            "type": "Normal",
        }
        put(fleet, CLUSTER, "v1/events", event)


def _scan(self: Any, res: Any) -> list[tuple[Any, Any]]:
    """The store as it was: every object walked for each list."""
    return [(key, obj) for key, obj in list(self._objects.items()) if key[0] == res]


def _passes(fleet: Any, n: int) -> float:
    """CPU seconds per controller pass (the process's: the emulator's loop runs on a thread of this process)."""
    start = time.process_time()
    for _ in range(n):
        fleet.call(CLUSTER, _reconcile)
    return (time.process_time() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--passes", type=int, default=100)
    args = parser.parse_args()
    now_clone, now_index = store.clone, store.EmulatorStore._of_resource
    with one_cluster(CLUSTER) as fleet:
        _scene(fleet)
        fleet.call(CLUSTER, _reconcile)  # the pods the controllers make, then a steady state
        before, after = [], []
        for _ in range(args.runs):
            store.clone, store.EmulatorStore._of_resource = copy.deepcopy, _scan  # type: ignore[assignment,method-assign]
            before.append(_passes(fleet, args.passes))
            store.clone, store.EmulatorStore._of_resource = now_clone, now_index  # type: ignore[method-assign]
            after.append(_passes(fleet, args.passes))
        pods = fleet.call(CLUSTER, lambda emu: len(emu.list_objects("v1/pods", copied=False)))
    b, a = statistics.median(before), statistics.median(after)
    print(f"one cluster, {pods} pods; {args.runs} runs of {args.passes} passes, alternating")
    print(f"CPU per controller pass, median: before {b * 1000:.2f} ms, now {a * 1000:.2f} ms")
    per_run = ", ".join(f"{x / y:.2f}" for x, y in zip(after, before, strict=True))
    print(f"now / before: {a / b:.2f} (per run: {per_run})")


if __name__ == "__main__":
    main()
