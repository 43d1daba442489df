"""AwaitInService's handler: Step Functions' ``lambda:invoke.waitForTaskToken`` hands the workflow document
and the task token; the use case parks the token until HyperPod settles (usecases.workflows.create_hyperpod)."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.observability import logger
from launchpod.usecases.regions import in_workflow_region
from launchpod.usecases.workflows.create_hyperpod import WAIT_IN_SERVICE, park_until_in_service


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, object]:
    doc = WorkflowInput.model_validate(event["document"])
    logger.append_keys(operation_id=doc.operationId, phase=WAIT_IN_SERVICE, cluster=doc.target)
    with in_workflow_region(doc.target, doc.request):
        return park_until_in_service(doc, str(event["taskToken"]))
