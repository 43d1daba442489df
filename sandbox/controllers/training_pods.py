"""The pods of training jobs, shared by the HyperPod training operator (``training``) and KubeRay (``kuberay``):
made from a job's pod template, bound where kube-scheduler would (``scheduling``), started once the kubelet can set
their volumes up (``mounts``), ended with an exit code, and the lines their training writes. Also the simulated
training's settings and each job's run state.

Simulated time runs at the sandbox's time scale; pods log one training step every ``log_interval``
simulated seconds (``POST /api/sandbox/faults {"jobLogIntervalSeconds": n}``) for ``steps`` steps.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from sandbox.controllers import mounts, scheduling
from sandbox.controllers.common import timestamp
from sandbox.state import STATE


@dataclass
class Settings:
    log_interval: float = 10.0  # simulated seconds between training steps
    steps: int = 40
    lines_per_step: int = 1  # log lines a pytorch pod writes per step (volume for the log stream bench)
    # steps between the checkpoints a job's code writes: a restart resumes from the last one (1: every step)
    checkpoint_every: int = 1


@dataclass
class _Run:
    """The operator's memory of one job (keyed by the job's uid)."""

    started: float  # time.monotonic() of the current attempt's start
    step: int = 0  # steps done (survives process restarts: training resumes from its checkpoint)
    last_step_at: float = 0.0  # simulated seconds since ``started`` of the last step
    last_match: dict[str, float] = field(default_factory=dict)  # rule -> sim seconds of its last match
    hung: bool = False
    window: list[float] = field(default_factory=list)  # monotonic times of process restarts since the last full one
    pending: list[tuple[str, str]] = field(default_factory=list)  # injected (kind, pod) faults
    generation: int = 0  # full restarts so far: pods are recreated per generation
    read_inputs: bool = False  # the current processes found what they read in the bucket (sandbox.controllers.programs)
    # pod uid -> its local volumes (emptyDir, hostPath) by name: what the trainer wrote there stays between steps
    local: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the fault being recovered from (sandbox.controllers.training_resilience): when it struck (monotonic), the
    # step training had reached, how it is recovered; None once training is past that step again
    fault_at: float | None = None
    fault_step: int = 0
    fault_how: str = ""
    resumed_from: int = 0  # the step the recovery resumed training from
    unplaced_since: float | None = None  # an elastic job's replacement pod has waited for a node since then


@dataclass
class TrainingState:
    """What the training operator and KubeRay keep: the simulated training's settings, each job's run
    (by the job's uid) and the job faults queued by POST /api/sandbox/faults."""

    settings: Settings = field(default_factory=Settings)
    runs: dict[str, _Run] = field(default_factory=dict)
    faults: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # guards faults


def training_state() -> TrainingState:
    return STATE.part(TrainingState)


async def _event(
    emulator: Any,
    obj: dict[str, Any],
    reason: str,
    message: str,
    warning: bool = False,
    component: str = "hyperpod-training-operator",
) -> None:
    meta = obj["metadata"]
    now = timestamp()
    await emulator.put_object(
        "v1/events",
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{uuid.uuid4().hex[:16]}", "namespace": meta["namespace"]},
            "involvedObject": {
                "apiVersion": obj.get("apiVersion", "v1"),
                "kind": obj.get("kind", "Pod"),
                "name": meta["name"],
                "namespace": meta["namespace"],
                "uid": meta.get("uid", ""),
            },
            "reason": reason,
            "message": message,
            "type": "Warning" if warning else "Normal",
            "source": {"component": component},
            "count": 1,
            "firstTimestamp": now,
            "lastTimestamp": now,
        },
    )


def _pod(owner: dict[str, Any], name: str, template: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": meta["namespace"],
            "labels": {**((template.get("metadata") or {}).get("labels") or {}), **labels},
            "ownerReferences": [
                {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"]}
            ],
        },
        "spec": dict(template.get("spec") or {}),
        "status": {"phase": "Pending"},
    }


async def _place(emulator: Any, pods: list[dict[str, Any]]) -> bool:
    """Bind each Pending pod where kube-scheduler would and start it once the kubelet can set its volumes
    up (sandbox.controllers.mounts); True when all have started."""
    nodes = emulator.list_objects("v1/nodes")
    all_bound = True
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName"):
            if (pod.get("status") or {}).get("phase") == "Pending" and not await _start(emulator, pod):
                all_bound = False
            continue
        bound = [p for p in emulator.list_objects("v1/pods") if (p.get("spec") or {}).get("nodeName")]
        node, message = scheduling.schedule(pod["spec"], nodes, bound)
        if node is None:
            all_bound = False
            conditions = (pod.get("status") or {}).get("conditions") or [{}]
            if conditions[0].get("message") != message:
                pod["status"] = {
                    "phase": "Pending",
                    "conditions": [
                        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
                    ],
                }
                await emulator.put_object("v1/pods", pod)
                await _event(emulator, pod, "FailedScheduling", message, warning=True)
            continue
        pod["spec"]["nodeName"] = node
        await _event(
            emulator,
            pod,
            "Scheduled",
            f"Successfully assigned {pod['metadata']['namespace']}/{pod['metadata']['name']} to {node}",
        )
        if not await _start(emulator, pod):
            all_bound = False
    return all_bound


async def _start(emulator: Any, pod: dict[str, Any]) -> bool:
    """Run a bound pod, or leave it Pending in ContainerCreating with the kubelet's FailedMount; True when running."""
    failed = mounts.failed_mount(emulator, pod["metadata"]["namespace"], pod["spec"])
    if failed is None:
        pod["status"] = _running_status(pod, 0)
        await emulator.put_object("v1/pods", pod)
        return True
    waiting = [mounts.container_creating(c) for c in pod["spec"].get("containers") or []]
    if (pod.get("status") or {}).get("containerStatuses") != waiting:
        pod["status"] = {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}],
            "containerStatuses": waiting,
        }
        await emulator.put_object("v1/pods", pod)
        await _event(emulator, pod, "FailedMount", failed, warning=True, component="kubelet")
    return False


def _running_status(pod: dict[str, Any], restarts: int) -> dict[str, Any]:
    return {
        "phase": "Running",
        "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {
                "name": c["name"],
                "image": c.get("image", ""),
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": restarts,
                "state": {"running": {"startedAt": timestamp()}},
            }
            for c in pod["spec"].get("containers") or []
        ],
    }


async def _finish_pod(emulator: Any, pod: dict[str, Any], phase: str, exit_code: int, reason: str) -> None:
    pod["status"] = {
        "phase": phase,
        "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}],
        "containerStatuses": [
            {
                "name": c["name"],
                "image": c.get("image", ""),
                "imageID": "",
                "ready": False,
                "started": False,
                "restartCount": 0,
                "state": {"terminated": {"exitCode": exit_code, "reason": reason, "finishedAt": timestamp()}},
            }
            for c in pod["spec"].get("containers") or []
        ],
    }
    await emulator.put_object("v1/pods", pod)


def training_container(containers: list[dict[str, Any]]) -> str:
    """The container the training runs in: the one whose command runs the elastic agent's hyperpodrun (AWS:
    the agent "orchestrates lifecycles of training workers on each container",
    https://pypi.org/project/hyperpod-elastic-agent/), else the first. A pod's other containers (sidecars)
    run programs of the user's own that the sandbox does not play: their logs hold only what a test writes
    (POST /api/sandbox/pods/log)."""
    for c in containers:
        if any("hyperpodrun" in str(part) for part in (c.get("command") or []) + (c.get("args") or [])):
            return str(c["name"])
    return str(containers[0]["name"])


def _write(emulator: Any, pod: dict[str, Any], text: str) -> None:
    container = training_container(pod["spec"]["containers"])
    emulator.append_log(pod["metadata"]["namespace"], pod["metadata"]["name"], text, container)


def _loss(step: int) -> float:
    return round(2.5 / (1 + step * 0.15) + 0.05, 4)


def _tokens_per_second(step: int) -> float:
    """The emulated trainer's throughput at ``step``: slow on the first steps (kernels compile, caches warm), then
    steady near 12,000 tokens/s, a little uneven from step to step as a real loop's is. Logged under the keys
    Launchpod reads (launchpod.domain.metrics.training), so a job's throughput chart moves while it trains."""
    return round(12_000 * (1 - 0.6**step) + 150 * ((step * 7) % 5 - 2), 1)
