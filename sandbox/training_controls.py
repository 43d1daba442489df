"""The training fields of POST /api/sandbox/faults: a job fault to inject, the pods' step interval."""

from __future__ import annotations

from typing import Any

from sandbox import training

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
        training.SETTINGS.log_interval = float(seconds)
    if "jobLogLinesPerStep" in body:
        lines = body["jobLogLinesPerStep"]
        if not isinstance(lines, int) or isinstance(lines, bool) or not 1 <= lines <= 100_000:
            return "jobLogLinesPerStep is 1..100000 lines a pytorch pod writes per step."
        training.SETTINGS.lines_per_step = lines
    if "jobSteps" in body:
        steps = body["jobSteps"]
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= 100_000:
            return "jobSteps is 1..100000 training steps per job."
        training.SETTINGS.steps = steps
    return None
