"""One emulated API server for a test of the sandbox's controllers: started (time optionally sped up),
objects stored on it as ``kubectl apply`` would (a Ready node among them), and the one pod the workload
controllers made; and the bucket a storage volume mounts (conftest.py's ``s3`` fixture makes it)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

from sandbox.aws import clock
from sandbox.controllers.workloads import _reconcile
from sandbox.kube import KubeFleet

BUCKET = "shared-bucket"
IN_REGION = {"topology.kubernetes.io/region": "us-east-1"}


def ready_node(name: str, labels: dict[str, str], allocatable: dict[str, str]) -> dict[str, Any]:
    """A Node as its kubelet reports it once it has joined: Ready, with ``labels`` and ``allocatable``."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": allocatable, "conditions": [{"type": "Ready", "status": "True"}]},
    }


@contextlib.contextmanager
def one_cluster(name: str, time_scale: float | None = None) -> Iterator[KubeFleet]:
    """A fleet serving ``name`` alone, stopped on exit; with ``time_scale`` the sandbox's clock runs at that
    scale meanwhile (then as before)."""
    before = clock.get_time_scale()
    if time_scale is not None:
        clock.set_time_scale(time_scale)
    fleet = KubeFleet()
    fleet.start_for(name)
    try:
        yield fleet
    finally:
        fleet.stop_all()
        clock.set_time_scale(before)


def put(fleet: KubeFleet, cluster: str, resource: str, obj: dict[str, Any]) -> None:
    """Store a copy of ``obj`` under ``resource`` (e.g. ``apps/v1/deployments``) on ``cluster``."""

    async def store(emu: Any) -> None:
        await emu.put_object(resource, copy.deepcopy(obj))

    fleet.call(cluster, store)


def only_pod(fleet: KubeFleet, cluster: str, namespace: str = "default") -> dict[str, Any]:
    """The workload controllers' one pod in ``namespace``, after they have reconciled."""
    fleet.call(cluster, _reconcile)
    (pod,) = fleet.call(cluster, lambda emu: emu.list_objects("v1/pods", namespace))
    return dict(pod)
