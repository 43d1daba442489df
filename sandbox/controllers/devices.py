"""Which GPU, or which GPU partition, each container on a node holds: the kubelet's device manager with NVIDIA's
device plugin, emulated for the sandbox, and what the kubelet's PodResources API answers about it.

Kubernetes ("Device Plugins",
https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/): a device plugin
advertises an extended resource as a list of device IDs; when a container that asks for that resource starts,
the kubelet's device manager hands it that many free device IDs, which stay its own until the pod ends; the
node's PodResources API (``List``, "Monitoring device plugin resources" on the same page) answers, per pod and
container, ``devices: [{resourceName, deviceIds}]``. NVIDIA ("GPU Operator with MIG",
https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html): with the mixed
strategy the plugin advertises each MIG profile as ``nvidia.com/mig-<profile>``, one device per MIG instance of
every GPU, and whole GPUs as ``nvidia.com/gpu``.

The sandbox's device IDs: a GPU is ``GPU-<uuid>`` (a UUID made from the node's name and the GPU's index), a MIG
instance ``MIG-GPU-<uuid>/<gpu instance>/0``, the form of NVIDIA's MIG user guide that names the GPU the
instance is on ("Device Enumeration", https://docs.nvidia.com/datacenter/tesla/mig-user-guide/); GPU instances
are numbered 1.. on each GPU in the order of its layout. Which free device the kubelet hands out is its and
the plugin's choice (``GetPreferredAllocation``); the sandbox takes the first free ones in GPU order, so small
partitions fill one GPU before the next (the plugin's "packed" allocation policy). A device is handed out when
the controllers next pass over the node after its pod is bound (a few simulated seconds at most), not at the
container's start. Not modelled: NVIDIA_VISIBLE_DEVICES inside the container, device health.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from sandbox.controllers import scheduling
from sandbox.state import STATE

GPU = "nvidia.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"
ENDED = ("Succeeded", "Failed")
Held = tuple[str, str, dict[str, dict[str, list[str]]]]


@dataclass
class Devices:
    """cluster -> node name -> pod uid -> (pod namespace, pod name, container -> resource -> device IDs)."""

    held: dict[str, dict[str, dict[str, Held]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def devices() -> Devices:
    return STATE.part(Devices)


def _gpu_id(node: str, index: int) -> str:
    return f"GPU-{uuid.uuid5(uuid.NAMESPACE_URL, f'sandbox-gpu:{node}/{index}')}"


def advertised(node: dict[str, Any]) -> dict[str, list[str]]:
    """resource -> the node's device IDs of it, in the order the sandbox hands them out."""
    name = node["metadata"]["name"]
    labels = node["metadata"].get("labels") or {}
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    out: dict[str, list[str]] = {}
    whole = int(scheduling.quantity(allocatable.get(GPU, 0)))
    if whole:
        out[GPU] = [_gpu_id(name, i) for i in range(whole)]
    gpus = int(labels.get("nvidia.com/gpu.count") or 0)
    profiles = sorted(r for r in allocatable if r.startswith(MIG_PREFIX))
    per_gpu = {p: int(scheduling.quantity(allocatable[p])) // gpus for p in profiles} if gpus else {}
    for index in range(gpus if per_gpu else 0):
        instance = 0
        for profile in profiles:
            for _ in range(per_gpu[profile]):
                instance += 1
                out.setdefault(profile, []).append(f"MIG-{_gpu_id(name, index)}/{instance}/0")
    return out


def _asks(container: dict[str, Any]) -> dict[str, int]:
    limits = (container.get("resources") or {}).get("limits") or {}
    return {
        r: int(scheduling.quantity(v))
        for r, v in limits.items()
        if (r == GPU or r.startswith(MIG_PREFIX)) and scheduling.quantity(v) > 0
    }


def allocate(emulator: Any, cluster: str) -> None:
    """Hand each bound container of the cluster the devices it asks for, and take them back from ended pods."""
    # read only, on the emulator's loop: the stored objects themselves, not copies
    nodes = {n["metadata"]["name"]: n for n in emulator.list_objects("v1/nodes", copied=False)}
    on_node: dict[str, list[dict[str, Any]]] = {}
    for pod in emulator.list_objects("v1/pods", copied=False):
        where = (pod.get("spec") or {}).get("nodeName")
        running = where in nodes and (pod.get("status") or {}).get("phase") not in ENDED
        if running and any(_asks(c) for c in (pod.get("spec") or {}).get("containers") or []):
            on_node.setdefault(str(where), []).append(pod)
    state = devices()
    with state.lock:
        of_cluster = state.held.setdefault(cluster, {})
        for gone in set(of_cluster) - set(nodes):
            del of_cluster[gone]
        for name, node in nodes.items():
            held = of_cluster.setdefault(name, {})
            pods = sorted(
                on_node.get(name, []),
                key=lambda p: (str(p["metadata"].get("creationTimestamp") or ""), p["metadata"]["name"]),
            )
            live = {p["metadata"]["uid"] for p in pods}
            for gone in set(held) - live:
                del held[gone]
            if not pods:
                continue
            taken = {
                d for _, _, held_by in held.values() for rs in held_by.values() for ids in rs.values() for d in ids
            }
            offered = advertised(node)
            for pod in pods:
                meta = pod["metadata"]
                if meta["uid"] in held:
                    continue
                containers: dict[str, dict[str, list[str]]] = {}
                for container in pod["spec"].get("containers") or []:
                    for resource, count in _asks(container).items():
                        free = [d for d in offered.get(resource, []) if d not in taken][:count]
                        taken.update(free)
                        containers.setdefault(container["name"], {})[resource] = free
                held[meta["uid"]] = (meta.get("namespace") or "default", meta["name"], containers)


def pod_resources(cluster: str, node: str) -> list[dict[str, Any]]:
    """The node's PodResources ``List``: each pod holding devices, with each container's devices."""
    state = devices()
    with state.lock:
        held = dict(state.held.get(cluster, {}).get(node, {}))
    return [
        {
            "name": pod,
            "namespace": namespace,
            "containers": [
                {"name": c, "devices": [{"resourceName": r, "deviceIds": ids} for r, ids in sorted(rs.items())]}
                for c, rs in containers.items()
            ],
        }
        for namespace, pod, containers in sorted(held.values())
    ]
