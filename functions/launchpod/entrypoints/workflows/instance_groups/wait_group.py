"""WaitGroup: follows the group to a terminal state. Where HyperPod records cluster operations, the
Scaling operation created after the UpdateCluster call (ListClusterOperations, DescribeClusterOperation)
says when HyperPod has finished; the group's DescribeCluster status and counts then say whether it got
there, and its events since the call say why not. Where no operation is listed, DescribeCluster alone:
InService with its target count (or, for a delete, no longer listed); a Failed group ends it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from launchpod.contracts.phase_outputs import UpdateClusterOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.instance_groups import workflow
from launchpod.entrypoints.workflows.instance_groups._common import change_of, cluster_of, group_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "WaitGroup"


def _called_at(doc: WorkflowInput) -> datetime | None:
    called = doc.output(UpdateClusterOutput)
    return datetime.fromisoformat(called.calledAt) if called else None


def _operation(doc: WorkflowInput, group: str, since: datetime | None) -> dict[str, Any] | None:
    if since is None:  # HyperPod already had the change: no UpdateCluster call to follow
        return None
    return wiring.sagemaker().scaling_operation(hyperpod.hyperpod_name(doc.target), group, since)


def run(doc: WorkflowInput) -> PhaseResult:
    change, since = change_of(doc), _called_at(doc)
    # The operation first, DescribeCluster after: an operation read as Done then finds the group as
    # HyperPod left it (read the other way round, HyperPod can finish in between, and a deleted group
    # would still be listed).
    operation = _operation(doc, change.group, since)
    cluster = cluster_of(doc)
    details = group_of(cluster, change.group)
    done, failure = workflow.operation_state(change.action, change.group, operation, details)
    if failure:
        name = hyperpod.hyperpod_name(doc.target)
        why = (
            wiring.sagemaker().latest_group_error(name, change.group, since) if hyperpod.keeps_events(cluster) else None
        )
        # What the operation (or DescribeCluster) says of the group, then HyperPod's own words for why.
        raise PermanentError(hyperpod.failure_hint(f"{failure} {why or cluster.get('FailureMessage') or ''}".strip()))
    followed = workflow.scaling_detail(operation, change.group) is not None
    # Without an operation the first look may come before HyperPod has taken the update in: settle only
    # once it is InService.
    if done and (followed or doc.poll.get(PHASE, 0) > 0 or cluster.get("ClusterStatus") == "InService"):
        if change.action == "delete":
            return PhaseResult(message=f"Instance group {change.group} is deleted.")
        assert details is not None
        return PhaseResult(
            message=f"Instance group {change.group} is {details['Status']} with "
            f"{details.get('CurrentCount', 0)}/{details.get('TargetCount', 0)} instances."
        )
    if doc.poll.get(PHASE, 0) >= workflow.MAX_POLLS:
        raise PermanentError(f"Instance group {change.group} is still settling after 90 minutes; check its events.")
    state = (
        f"{details.get('Status')} {details.get('CurrentCount', 0)}/{details.get('TargetCount', 0)}"
        if details
        else "gone"
    )
    if followed:
        assert operation is not None
        state += f" (operation {operation['OperationId']} {operation['Status']})"
    return PhaseResult(ready=False, wait=workflow.POLL_SECONDS, message=f"{change.group}: {state}")


handler = phase(PHASE)(run)
