"""The instance-groups workflow's phases: one change to one instance group by UpdateCluster, followed to a
terminal state (a dedicated subnet made before an add, released after a delete)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from launchpod.contracts.instance_groups import InstanceGroupChangeInput
from launchpod.contracts.phase_outputs import GroupSubnetOutput, UpdateClusterOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.instance_groups import changes, specs, workflow
from launchpod.domain.network import plan_subnets
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult


def change_of(doc: WorkflowInput) -> InstanceGroupChangeInput:
    return InstanceGroupChangeInput.model_validate(doc.request)


def cluster_of(doc: WorkflowInput) -> HyperPodCluster:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster any more.")
    return cluster


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)


def group_subnet(doc: WorkflowInput) -> PhaseResult:
    """GroupSubnet: a dedicated /20 for a new group, from the one subnet planner (it overlaps nothing in the
    VPC), in the group's zone, on the route table of the cluster's compute subnet, tagged with the group so
    the group's deletion finds and deletes it."""
    change = change_of(doc)
    if change.action != "add" or change.add is None or not change.add.dedicatedSubnet:
        return PhaseResult(skipped=True, message="The group uses the cluster's subnet.")
    ec2, cluster = wiring.ec2(), cluster_of(doc)
    cluster_subnets = list(cluster.subnets)
    if not cluster_subnets:
        raise PermanentError(f"{doc.target} reports no subnets in its VpcConfig; cannot place a new subnet.")
    home = ec2.subnets(subnet_ids=cluster_subnets[:1])[0]
    vpc_id, zone = home.vpc_id, change.zone or home.zone
    tags = workflow.subnet_tags(tags_of(doc), change.group)
    existing = ec2.subnets_tagged(vpc_id, tags)
    if existing:
        subnet_id, cidr = existing[0].id, existing[0].cidr
    else:
        vpc = ec2.vpc(vpc_id) or {}
        taken = [s.cidr for s in ec2.subnets(vpc_id=vpc_id)]
        (cidr,) = plan_subnets(vpc["CidrBlock"], taken, [workflow.GROUP_SUBNET_PREFIX])
        subnet_id = ec2.ensure_subnet(vpc_id, cidr, zone, {**tags, "Name": f"{doc.target}-{change.group}-{zone}"})
    table = next(
        (t for t in ec2.route_tables(vpc_id) if any(a.get("SubnetId") == home.id for a in t.get("Associations", []))),
        None,
    )
    if table is not None and not any(a.get("SubnetId") == subnet_id for a in table.get("Associations", [])):
        ec2.associate(table["RouteTableId"], subnet_id)
    routed = f"routed like {home.id}" if table else "on the VPC's main route table"
    return PhaseResult(
        outputs=GroupSubnetOutput(subnetId=subnet_id, cidr=cidr, zone=zone),
        message=f"{subnet_id} {cidr} in {zone} for {change.group}, {routed}.",
    )


def _update_params(doc: WorkflowInput, cluster: HyperPodCluster) -> dict[str, Any] | None:
    """UpdateCluster's parameters, or None when AWS already shows the change."""
    change, groups = change_of(doc), cluster.instance_groups
    name = hyperpod.hyperpod_name(doc.target)
    current = cluster.group(change.group)
    if change.action == "delete":
        if current is None or current.status == "Deleting":
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
        if spec == current.spec:
            return None
        return {"ClusterName": name, "InstanceGroups": specs.specs_for_update(groups, changed=spec)}
    if current is not None:
        return None
    if change.add is None:
        raise PermanentError("The add request has no group specification.")
    template = next((g for g in groups if g.execution_role), None)
    if template is None or template.execution_role is None:
        raise PermanentError(f"{doc.target} has no instance group to take the execution role from.")
    made = doc.output(GroupSubnetOutput)  # None: the group uses the cluster's subnet
    subnet = made.subnetId if made else None
    spec = changes.new_group_spec(
        change.add,
        execution_role=template.execution_role,
        lifecycle=template.spec.get("LifeCycleConfig"),
        subnet_ids=[subnet] if subnet else None,
        security_group_ids=list(cluster.security_group_ids),
        threads_per_core=change.add.threadsPerCore or 1,
    )
    return {"ClusterName": name, "InstanceGroups": specs.specs_for_update(groups, changed=spec)}


def update_cluster(doc: WorkflowInput) -> PhaseResult:
    """UpdateCluster: the whole instance-group list, each group this change does not touch rebuilt from
    DescribeCluster through the one whitelist (``domain.instance_groups.specs``), so nothing else resets.

    Re-runnable: a change AWS already shows (the group listed, the counts and labels as asked, the group
    gone or Deleting) is not sent twice; while another update is settling the call waits its turn, as
    HyperPod takes one update at a time."""
    change, cluster = change_of(doc), cluster_of(doc)
    params = _update_params(doc, cluster)
    if params is None:
        return PhaseResult(message=f"HyperPod already has the change to {change.group}; following it.")
    status = cluster.status
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


WAIT_GROUP = "WaitGroup"


def _called_at(doc: WorkflowInput) -> datetime | None:
    called = doc.output(UpdateClusterOutput)
    return datetime.fromisoformat(called.calledAt) if called else None


def _scaling_operation(doc: WorkflowInput, group: str, since: datetime | None) -> dict[str, Any] | None:
    if since is None:  # HyperPod already had the change: no UpdateCluster call to follow
        return None
    return wiring.sagemaker().scaling_operation(hyperpod.hyperpod_name(doc.target), group, since)


def wait_group(doc: WorkflowInput) -> PhaseResult:
    """WaitGroup: follows the group to a terminal state. Where HyperPod records cluster operations, the
    Scaling operation created after the UpdateCluster call (ListClusterOperations, DescribeClusterOperation)
    says when HyperPod has finished; the group's DescribeCluster status and counts then say whether it got
    there, and its events since the call say why not. Where no operation is listed, DescribeCluster alone:
    InService with its target count (or, for a delete, no longer listed); a Failed group ends it."""
    change, since = change_of(doc), _called_at(doc)
    # The operation first, DescribeCluster after: an operation read as Done then finds the group as
    # HyperPod left it (read the other way round, HyperPod can finish in between, and a deleted group
    # would still be listed).
    operation = _scaling_operation(doc, change.group, since)
    cluster = cluster_of(doc)
    details = cluster.group(change.group)
    done, failure = workflow.operation_state(change.action, change.group, operation, details)
    if failure:
        name = hyperpod.hyperpod_name(doc.target)
        why = (
            wiring.sagemaker().latest_group_error(name, change.group, since) if hyperpod.keeps_events(cluster) else None
        )
        # What the operation (or DescribeCluster) says of the group, then HyperPod's own words for why.
        raise PermanentError(hyperpod.failure_hint(f"{failure} {why or cluster.failure_message or ''}".strip()))
    followed = workflow.scaling_detail(operation, change.group) is not None
    # Without an operation the first look may come before HyperPod has taken the update in: settle only
    # once it is InService.
    if done and (followed or doc.poll.get(WAIT_GROUP, 0) > 0 or cluster.status == "InService"):
        if change.action == "delete":
            return PhaseResult(message=f"Instance group {change.group} is deleted.")
        assert details is not None
        return PhaseResult(
            message=f"Instance group {change.group} is {details.status} with "
            f"{details.current_count}/{details.target_count} instances."
        )
    if doc.poll.get(WAIT_GROUP, 0) >= workflow.MAX_POLLS:
        raise PermanentError(f"Instance group {change.group} is still settling after 90 minutes; check its events.")
    state = f"{details.status} {details.current_count}/{details.target_count}" if details else "gone"
    if followed:
        assert operation is not None
        state += f" (operation {operation['OperationId']} {operation['Status']})"
    return PhaseResult(ready=False, wait=workflow.POLL_SECONDS, message=f"{change.group}: {state}")


def release_subnet(doc: WorkflowInput) -> PhaseResult:
    """ReleaseSubnet: after a group is deleted, its dedicated subnet (found by its tags) is deleted too."""
    change = change_of(doc)
    if change.action != "delete":
        return PhaseResult(skipped=True, message="Nothing to release.")
    ec2, cluster = wiring.ec2(), cluster_of(doc)
    cluster_subnets = list(cluster.subnets)
    if not cluster_subnets:
        return PhaseResult(skipped=True, message="The cluster reports no VPC.")
    vpc_id = ec2.subnets(subnet_ids=cluster_subnets[:1])[0].vpc_id
    owned = ec2.subnets_tagged(vpc_id, workflow.subnet_tags(tags_of(doc), change.group))
    if not owned:
        return PhaseResult(skipped=True, message=f"{change.group} used the cluster's subnet.")
    for subnet in owned:
        ec2.delete_subnet(subnet.id)
    return PhaseResult(
        outputs={"deleted": [s.id for s in owned]},
        message="Deleted " + ", ".join(f"{s.id} {s.cidr}" for s in owned) + ".",
    )
