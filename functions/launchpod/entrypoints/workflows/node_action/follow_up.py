"""FollowUp: after Finish released the cluster, run (policy auto) or suggest what the remediation ladder
decided while the node action ran, such as a replacement for a node still unhealthy after its reboot.
The operation has ended: this step never fails it, it only logs what it could not do."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.phase_outputs import StartActionOutput, WaitNodesOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints import remediation
from launchpod.entrypoints.observability import logger


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    doc = WorkflowInput.model_validate({k: v for k, v in event.items() if k != "finish"})
    start, waited = doc.output(StartActionOutput), doc.output(WaitNodesOutput)
    nodes = (start.accepted if start else []) + (list(waited.replacements.values()) if waited else [])
    try:
        ran = remediation.follow_up(doc.target, nodes)
    except LaunchpodError as exc:
        logger.warning("the ladder's follow-up could not run", extra={"error": exc.message})
        return {"operationId": doc.operationId, "followedUp": []}
    return {"operationId": doc.operationId, "followedUp": ran}
