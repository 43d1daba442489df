"""A serving container that exits at start, as the kubelet restarts it: CrashLoopBackOff.

A model server whose model directory in the bucket is empty exits with its error seconds after it starts
(sandbox.controllers.programs). A Deployment's Pod has ``restartPolicy: Always``, so the kubelet starts the container
again after an exponential back-off of 10 s, 20 s, 40 s ... capped at 5 minutes; in between the container
is ``waiting`` with reason ``CrashLoopBackOff``, ``restartCount`` counts the restarts, ``lastState`` holds
the last exit (code 1, reason Error), the Pod stays Running and never Ready
(https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts). Each run prints
its error again to the container's log.

With ``terminationMessagePolicy: FallbackToLogsOnError`` the kubelet puts the tail of the log (at most
2048 bytes or 80 lines, whichever is smaller) in the terminated state's ``message`` when the program wrote
no termination message (https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/
#customizing-the-termination-message); with the default ``File`` policy it stays empty.

The sandbox's choice: the server exits ``RUNS_FOR`` simulated seconds after each start (vLLM and SGLang read
the model's config before they load any weight). Not modelled: the restart count kept once the model appears
(the Pod then starts over at 0), and the back-off reset after 10 minutes of running.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import clock
from sandbox.controllers import operators
from sandbox.controllers.common import timestamp
from sandbox.state import STATE

RUNS_FOR = 5.0
TAIL_BYTES, TAIL_LINES = 2048, 80


@dataclass
class _Life:
    started: float  # time.monotonic() of the first start
    started_at: str
    printed: int = 0  # runs whose error is in the log


@dataclass
class CrashLoopState:
    """Each crash-looping container's life, by the key its caller names it with."""

    lives: dict[str, _Life] = field(default_factory=dict)


def _tail(text: str) -> str:
    lines = text.splitlines(keepends=True)[-TAIL_LINES:]
    return "".join(lines).encode()[-TAIL_BYTES:].decode(errors="ignore")


def forget(key: str) -> None:
    """The container no longer fails (its model is there now): its next status is a fresh start's."""
    STATE.part(CrashLoopState).lives.pop(key, None)


def container_status(
    emulator: Any, key: str, namespace: str, pod: str, container: dict[str, Any], error: str
) -> dict[str, Any]:
    """The status the kubelet reports now for ``container`` of ``pod`` (``key`` names this Pod's life: a Pod
    made again starts over), appending ``error`` to its log once per run."""
    life = STATE.part(CrashLoopState).lives.setdefault(key, _Life(time.monotonic(), timestamp()))
    restarts, running, backoff, _ = operators.cycle(clock.sim_seconds_elapsed(life.started), RUNS_FOR)
    printed = restarts if running else restarts + 1  # each run prints its error as it exits
    name = container["name"]
    while life.printed < printed:
        emulator.append_log(namespace, pod, error, name)
        life.printed += 1
    status: dict[str, Any] = {
        "name": name,
        "image": container.get("image", ""),
        "imageID": "",
        "ready": False,
        "started": running,
        "restartCount": restarts,
        "state": operators.restart_state(running, life.started_at, backoff, name, pod, namespace),
    }
    if restarts or not running:
        terminated: dict[str, Any] = {"exitCode": 1, "reason": "Error"}
        if container.get("terminationMessagePolicy") == "FallbackToLogsOnError":
            terminated["message"] = _tail(error)
        status["lastState"] = {"terminated": terminated}
    return status
