"""AwaitInService: the workflow sleeps on a task token until HyperPod settles.

Step Functions invokes this with ``lambda:invoke.waitForTaskToken``. The token is parked on the
cluster's record, where the cluster-state event handler finds it when HyperPod reports InService
(or Failed) and wakes the workflow at once. Only then is HyperPod's status read: a cluster that
settled before the token was parked wakes its workflow from here. If no event ever comes, the
task's timeout sends the workflow to WaitInService anyway, a poll as fallback.
"""

from __future__ import annotations

from typing import Any

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    doc = WorkflowInput.model_validate(event["document"])
    token = str(event["taskToken"])
    logger.append_keys(operation_id=doc.operationId, phase="WaitInService", cluster=doc.target)
    wiring.clusters().park_waiter(doc.target, token)
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    status = cluster["ClusterStatus"] if cluster else None
    if status in hyperpod.SETTLED_STATUSES and wiring.clusters().take_waiter(doc.target) == token:
        wiring.workflows().send_task_success(token, {"status": status, "wokenBy": "check"})
        return {"parked": False, "status": status}
    return {"parked": True, "status": status}
