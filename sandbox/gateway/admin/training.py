"""The training fields of POST /api/sandbox/faults (a job fault to inject, the pods' step interval), and
POST /api/sandbox/pods/log: lines a pod's container prints, for the containers whose program the sandbox does
not play (a training pod's sidecars; sandbox.controllers.training plays only the container running hyperpodrun)."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.controllers import training
from sandbox.controllers.training_pods import training_state
from sandbox.gateway.admin.replies import Guard, error, invalid, json_body

_FAULT_FIELDS = {"cluster", "job", "kind", "namespace", "pod", "atStep"}


def training_controls(body: dict[str, Any]) -> str | None:
    """Apply the training fields of a faults request; the 422 message when one is wrong."""
    fault = body.get("jobFault")
    if fault is not None:
        if not isinstance(fault, dict) or not {"cluster", "job", "kind"} <= set(fault) <= _FAULT_FIELDS:
            return (
                'jobFault is {"cluster": "<name>", "job": "<job>", "kind": "processCrash|hang|nodeFailure"} with '
                'optional "namespace" (default "default"), "pod" and "atStep" (strike once training has done '
                "that many steps; training holds there until it does)."
            )
        at_step = fault.get("atStep")
        if at_step is not None and (not isinstance(at_step, int) or isinstance(at_step, bool) or at_step < 1):
            return "jobFault atStep is a whole number of training steps, 1 or more."
        try:
            training.inject(
                str(fault["cluster"]),
                str(fault.get("namespace") or "default"),
                str(fault["job"]),
                str(fault["kind"]),
                fault.get("pod"),
                at_step,
            )
        except ValueError as exc:
            return str(exc)
    if "jobLogIntervalSeconds" in body:
        seconds = body["jobLogIntervalSeconds"]
        if not isinstance(seconds, int | float) or not 0.1 <= seconds <= 3600:
            return "jobLogIntervalSeconds is 0.1..3600 simulated seconds."
        training_state().settings.log_interval = float(seconds)
    if "jobLogLinesPerStep" in body:
        lines = body["jobLogLinesPerStep"]
        if not isinstance(lines, int) or isinstance(lines, bool) or not 1 <= lines <= 100_000:
            return "jobLogLinesPerStep is 1..100000 lines a pytorch pod writes per step."
        training_state().settings.lines_per_step = lines
    if "jobCheckpointEverySteps" in body:
        every = body["jobCheckpointEverySteps"]
        if not isinstance(every, int) or isinstance(every, bool) or not 1 <= every <= 100_000:
            return "jobCheckpointEverySteps is 1..100000 training steps between a job's checkpoints."
        training_state().settings.checkpoint_every = every
    if "jobSteps" in body:
        steps = body["jobSteps"]
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= 100_000:
            return "jobSteps is 1..100000 training steps per job."
        training_state().settings.steps = steps
    return None


_LOG_FIELDS = {"cluster", "namespace", "pod", "container", "lines"}


def _write_log(emulator: Any, namespace: str, pod: str, container: str, lines: list[str]) -> str | None:
    """Append the lines to the container's log, as its program printing them; the 4xx message otherwise."""
    found = emulator.get_object("v1/pods", namespace, pod)
    if found is None:
        return f"No pod {pod} in namespace {namespace}."
    containers = [c.get("name") for c in (found.get("spec") or {}).get("containers") or []]
    if container not in containers:
        return f"Pod {pod} has no container {container}; its containers are {', '.join(containers)}."
    emulator.append_log(namespace, pod, "".join(f"{line}\n" for line in lines), container)
    return None


def pod_log_route(admin_or_error: Guard, sandbox: Any) -> Route:
    async def pod_log(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        body = await json_body(request)
        if (
            not isinstance(body, dict)
            or not {"cluster", "pod", "container", "lines"} <= set(body) <= _LOG_FIELDS
            or not isinstance(body["lines"], list)
            or not all(isinstance(line, str) and "\n" not in line for line in body["lines"])
        ):
            message = (
                'Send {"cluster": "<name>", "namespace": "default", "pod": "<pod>", "container": "<container>", '
                '"lines": ["<line>", ...]}: the lines that container prints.'
            )
            return invalid(message)
        namespace = str(body.get("namespace") or "default")
        try:
            problem = await run_in_threadpool(
                sandbox.fleet.call,
                str(body["cluster"]),
                lambda emulator: _write_log(
                    emulator, namespace, str(body["pod"]), str(body["container"]), body["lines"]
                ),
            )
        except KeyError:
            problem = f"No Kubernetes API server runs for cluster {body['cluster']!r}."
        if problem:
            return error(404, "NOT_FOUND", problem)
        return JSONResponse({"written": len(body["lines"])})

    return Route("/api/sandbox/pods/log", pod_log, methods=["POST"])
