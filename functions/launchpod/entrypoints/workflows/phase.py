"""The phase decorator: a workflow Task's Lambda handler, parse → one use case → dump, like a route.

The use case is the phase's own function, ``(WorkflowInput) -> PhaseResult``, in
``launchpod.usecases.workflows``; ``run_phase`` there records it on the operation. This module only
validates the event, tags the log lines, runs the phase in its cluster's Region (usecases.regions), logs what
crosses into Step Functions and hands back the document for the next state.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import RetryableError
from launchpod.entrypoints.observability import logger
from launchpod.usecases.regions import in_workflow_region
from launchpod.usecases.workflows.phase import PhaseCrashed, PhaseResult, PhaseRun, run_phase

__all__ = ["PhaseResult", "phase"]

_LAMBDA_MAX_MS = 900_000  # Lambda's longest timeout, 15 minutes


def phase(name: str) -> Callable[[PhaseRun], Callable[[dict[str, Any], Any], dict[str, Any]]]:
    def decorate(run: PhaseRun) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        @wraps(run)
        @logger.inject_lambda_context(clear_state=True)
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            doc = WorkflowInput.model_validate(event)
            logger.append_keys(operation_id=doc.operationId, phase=name, cluster=doc.target)
            remaining = getattr(context, "get_remaining_time_in_millis", lambda: _LAMBDA_MAX_MS)()
            try:
                with in_workflow_region(doc.target, doc.request):
                    return run_phase(name, doc, remaining, run)
            except RetryableError as exc:
                logger.warning("phase will be retried", extra={"error": exc.message})
                raise
            except PhaseCrashed:
                logger.exception("phase crashed")
                raise

        return handler

    return decorate
