"""The instance-groups workflow: one change to one group, by UpdateCluster, followed to a terminal
state through HyperPod's cluster operation for the request (DescribeClusterOperation), or through
DescribeCluster's group status where HyperPod lists no operation."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.instance_groups import InstanceGroupChangeInput
from launchpod.domain import mig
from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.operations import WorkflowPlan
from launchpod.domain.plan import Step

KIND = "instance-groups"
PHASES: tuple[tuple[str, str], ...] = (
    ("GroupSubnet", "A dedicated /20 subnet for the new group (when asked)"),
    ("UpdateCluster", "UpdateCluster with every other group kept as DescribeCluster reports it"),
    ("WaitGroup", "Wait until the group is InService (or gone)"),
    ("ReleaseSubnet", "Delete the deleted group's dedicated subnet"),
)
GROUP_SUBNET_PREFIX = 20
POLL_SECONDS = 30
MAX_POLLS = 90 * 60 // POLL_SECONDS  # adding nodes takes ~10 minutes; past 90 something is wrong
SUBNET_PURPOSE = "hyperpod-group"


def plan(
    request: InstanceGroupChangeInput, current: dict[str, Any] | None = None, dedicated: bool = False
) -> WorkflowPlan:
    """The workflow, with the steps this change runs (a dry run lists exactly those): ``current`` is the
    group's values in the request's terms (changes.current_values), ``dedicated`` whether a deleted group has
    a subnet Launchpod made for it alone."""
    return WorkflowPlan.of(KIND, request, PHASES, steps(request, current or {}, dedicated))


def steps(request: InstanceGroupChangeInput, current: dict[str, Any], dedicated: bool) -> list[Step]:
    group, target = request.group, f"Instance group {request.group}"
    if request.action == "add" and request.add is not None:
        add = request.add
        made = (
            [
                Step(
                    "create",
                    f"Subnet /{GROUP_SUBNET_PREFIX} in {request.zone} for {group}",
                    "dedicatedSubnet is true",
                    "GroupSubnet",
                )
            ]
            if add.dedicatedSubnet
            else []
        )
        what = f"{add.instanceCount} x {' or else '.join(add.types)} in {request.zone}, {add.capacityType}"
        if add.minInstanceCount:
            what += f", InService from {add.minInstanceCount}"
        if add.autoPatch:
            what += f", patched {add.autoPatch.strategy}"
        if add.mig is not None and add.instanceType:
            what += f", GPUs partitioned as {mig.config_for(add.instanceType, add.mig)}"
        return [
            *made,
            Step("create", target, f"UpdateCluster adds it: {what}", "UpdateCluster"),
            Step("wait", target, "until HyperPod reports it InService", "WaitGroup"),
        ]
    if request.action == "update":
        changed = "; ".join(
            f"{k} {_worded(k, current.get(k))} -> {_worded(k, v)}" for k, v in sorted((request.changes or {}).items())
        )
        return [
            Step("update", target, f"UpdateCluster changes {changed}", "UpdateCluster"),
            Step("wait", target, "until HyperPod reports it InService", "WaitGroup"),
        ]
    gone = [
        Step(
            "delete",
            target,
            f"UpdateCluster leaves it out; its {current.get('instanceCount', 0)} node(s) are terminated",
            "UpdateCluster",
        ),
        Step("wait", target, "until HyperPod no longer lists it", "WaitGroup"),
    ]
    if dedicated:
        gone.append(Step("delete", f"Subnet of {group}", "Launchpod made it for this group alone", "ReleaseSubnet"))
    return gone


def _worded(key: str, value: Any) -> str:
    """A changed value as the plan states it: automatic patching by its strategy and settings, labels as
    key=value pairs, not as Python's or JSON's notation."""
    if isinstance(value, dict) and key != "autoPatch":
        return ", ".join(f"{k}={v}" for k, v in sorted(value.items())) or "none"
    if key != "autoPatch" or not isinstance(value, dict):
        return repr(value)
    drain = value.get("drain") or {}
    size = value.get("maxBatchSize") or {}
    parts = [
        f"idle wait {value['idleWaitWindowSeconds']} s" if value.get("idleWaitWindowSeconds") else "",
        f"drain timeout {drain['drainTimeoutSeconds']} s, then {drain['onDrainTimeout']}" if drain else "",
        f"{size['value']}{'%' if size.get('type') == 'CAPACITY_PERCENTAGE' else ' node(s)'} at once" if size else "",
        f"next patch {value['nextPatchDate']}" if value.get("nextPatchDate") else "",
    ]
    shown = ", ".join(p for p in parts if p)
    return f"{value.get('strategy')} ({shown})" if shown else str(value.get("strategy"))


def subnet_tags(base: dict[str, str], group: str) -> dict[str, str]:
    """How a dedicated subnet is recorded: tagged with its cluster and group."""
    return {**base, "launchpod:purpose": SUBNET_PURPOSE, "launchpod:instance-group": group}


def wait_state(action: str, group: str, details: InstanceGroupState | None) -> tuple[bool, str | None]:
    """(done, failure) for ``group`` in DescribeCluster's InstanceGroups (None when it is not listed)."""
    if action == "delete":
        if details is None:
            return True, None
        if details.status == "Failed":
            return False, f"Instance group {group} failed while being deleted."
        return False, None
    if details is None:
        return False, f"Instance group {group} is not in the cluster any more."
    status = details.status
    if status == "Failed":
        return False, f"Instance group {group} failed."
    if status in ("InService", "Degraded") and details.current_count >= needed(details):
        return True, None
    return False, None


def needed(details: InstanceGroupState) -> int:
    """The instances a change waits for: the target, or a group's MinCount (HyperPod calls the group InService
    from its minimum and keeps provisioning the rest in the background: "Continuous provisioning",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html)."""
    return details.min_count or details.target_count


def scaling_detail(operation: dict[str, Any] | None, group: str) -> dict[str, Any] | None:
    """The operation's ScalingDetails entry for ``group`` (None: no operation, or it does not scale the group)."""
    details = (operation or {}).get("ScalingDetails") or []
    return next((d for d in details if d.get("InstanceGroupName") == group), None)


def operation_state(
    action: str, group: str, operation: dict[str, Any] | None, details: InstanceGroupState | None
) -> tuple[bool, str | None]:
    """(done, failure) for ``group`` from HyperPod's cluster operation for the UpdateCluster call, with the
    group as DescribeCluster lists it (None: not listed). Without an operation that scales the group (a
    region without cluster operations, or a change HyperPod already had), DescribeCluster decides alone.

    AWS ("Tracking requests with SageMaker HyperPod cluster operations",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-operations.html): HyperPod
    "tracks it until HyperPod finishes working on it"; the status is InProgress, Superseded or Done, and
    the operation carries no outcome: "Filter a request's events to find the failure reason when, for
    example, a scale-up doesn't reach its target". So InProgress waits; Done is terminal and the group's
    state then says whether it reached the target; Superseded means a newer request took the group over.
    """
    detail = scaling_detail(operation, group)
    if detail is None:
        return wait_state(action, group, details)
    status = detail.get("Status")
    if status == "InProgress":
        return False, None
    if status == "Superseded":
        return False, (
            f"Another request changed instance group {group} before HyperPod finished this one (its cluster "
            "operation is Superseded); follow the newer request."
        )
    if action == "delete":
        if details is None:
            return True, None
        if details.status == "Deleting":
            return False, None  # DescribeCluster read before HyperPod finished: read again
        return False, f"Instance group {group} is still listed ({details.status}) after its deletion."
    if details is None:
        return False, f"Instance group {group} is not in the cluster any more."
    if details.status in ("Creating", "Updating", "Deleting"):
        # DescribeCluster was read before the operation: HyperPod finished in between. Read again.
        return False, None
    target = int((detail.get("Desired") or {}).get("TargetCount", details.target_count))
    if details.min_count:
        target = min(target, needed(details))
    current = details.current_count
    if details.status == "Failed" or current < target:
        return False, f"Instance group {group} stopped at {current}/{target} instances ({details.status})."
    return True, None
