"""FollowUp's handler: the node action's operation has ended (Finish released the cluster), so this step
never fails it; it runs the ladder's follow-up (usecases.workflows.node_action) and only logs what it could
not do."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints.observability import logger
from launchpod.usecases.regions import in_workflow_region
from launchpod.usecases.workflows.node_action import follow_up


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    doc = WorkflowInput.model_validate({k: v for k, v in event.items() if k != "finish"})
    try:
        with in_workflow_region(doc.target, doc.request):
            ran = follow_up(doc)
    except LaunchpodError as exc:
        logger.warning("the ladder's follow-up could not run", extra={"error": exc.message})
        return {"operationId": doc.operationId, "followedUp": []}
    return {"operationId": doc.operationId, "followedUp": ran}
