"""Finish: the last state of every workflow. Records success and releases the cluster."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.operations import OperationStatus
from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    doc = WorkflowInput.model_validate(event)
    if doc.child:
        # A child execution of provision-cluster: the parent finishes the operation.
        return {"operationId": doc.operationId, "status": "CHILD_SUCCEEDED"}
    wiring.operations().finish(
        doc.operationId, OperationStatus.SUCCEEDED, error=None, message="Done", attempt=doc.attempt
    )
    return {"operationId": doc.operationId, "status": OperationStatus.SUCCEEDED.value}
