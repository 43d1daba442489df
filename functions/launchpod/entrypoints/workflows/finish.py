"""Finish's handler: the last state of every workflow records success and releases the cluster
(usecases.workflows.operation_end)."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.observability import logger
from launchpod.usecases.workflows import operation_end


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return operation_end.finish(WorkflowInput.model_validate(event))
