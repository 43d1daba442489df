"""UpdateCluster: the whole instance-group list, each group this change does not touch rebuilt from
DescribeCluster through the one whitelist (``domain.instance_groups.specs``), so nothing else resets.

Re-runnable: a change AWS already shows (the group listed, the counts and labels as asked, the group
gone or Deleting) is not sent twice; while another update is settling the call waits its turn, as
HyperPod takes one update at a time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from launchpod.contracts.phase_outputs import GroupSubnetOutput, UpdateClusterOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.instance_groups import changes, specs
from launchpod.entrypoints.workflows.instance_groups._common import change_of, cluster_of, group_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def _params(doc: WorkflowInput, cluster: dict[str, Any]) -> dict[str, Any] | None:
    """UpdateCluster's parameters, or None when AWS already shows the change."""
    change, groups = change_of(doc), list(cluster.get("InstanceGroups", []))
    name = hyperpod.hyperpod_name(doc.target)
    current = group_of(cluster, change.group)
    if change.action == "delete":
        if current is None or current.get("Status") == "Deleting":
            return None
        kept = specs.specs_for_update(groups, deleted=change.group)
        return {
            "ClusterName": name,
            "InstanceGroupsToDelete": [change.group],
            **({"InstanceGroups": kept} if kept else {}),
        }
    if change.action == "update":
        if current is None:
            raise PermanentError(f"{doc.target} has no instance group {change.group} any more.")
        spec = changes.apply_changes(current, change.changes)
        if spec == specs.spec_from_details(current):
            return None
        return {"ClusterName": name, "InstanceGroups": specs.specs_for_update(groups, changed=spec)}
    if current is not None:
        return None
    if change.add is None:
        raise PermanentError("The add request has no group specification.")
    template = next((g for g in groups if g.get("ExecutionRole")), None)
    if template is None:
        raise PermanentError(f"{doc.target} has no instance group to take the execution role from.")
    made = doc.output(GroupSubnetOutput)  # None: the group uses the cluster's subnet
    subnet = made.subnetId if made else None
    spec = changes.new_group_spec(
        change.add,
        execution_role=template["ExecutionRole"],
        lifecycle=template.get("LifeCycleConfig"),
        subnet_ids=[subnet] if subnet else None,
        security_group_ids=list((cluster.get("VpcConfig") or {}).get("SecurityGroupIds") or []),
        threads_per_core=change.add.threadsPerCore or 1,
    )
    return {"ClusterName": name, "InstanceGroups": specs.specs_for_update(groups, changed=spec)}


def run(doc: WorkflowInput) -> PhaseResult:
    change, cluster = change_of(doc), cluster_of(doc)
    params = _params(doc, cluster)
    if params is None:
        return PhaseResult(message=f"HyperPod already has the change to {change.group}; following it.")
    status = cluster.get("ClusterStatus")
    if status != "InService":
        # HyperPod takes one update at a time: wait for the one in flight (the Retry block backs off).
        raise RetryableError(f"{doc.target} is {status}; UpdateCluster waits until it is InService.")
    # The wait phase follows the cluster operation HyperPod creates for this request: the first created
    # after this moment (ListClusterOperations' CreationTimeAfter).
    called_at = datetime.now(UTC)
    wiring.sagemaker().update_cluster(params)
    kept = [g["InstanceGroupName"] for g in params.get("InstanceGroups", []) if g["InstanceGroupName"] != change.group]
    return PhaseResult(
        outputs=UpdateClusterOutput(groups=len(params.get("InstanceGroups", [])), calledAt=called_at.isoformat()),
        message=f"UpdateCluster: {change.action} {change.group}"
        + (f"; {', '.join(kept)} kept as they are." if kept else "."),
    )


handler = phase("UpdateCluster")(run)
