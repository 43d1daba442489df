"""HyperPod's cluster operations (ListClusterOperations / DescribeClusterOperation; moto has neither): the records.

AWS (developer guide, "Tracking requests with SageMaker HyperPod cluster operations",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-operations.html): "A cluster
operation is a record of a single scaling or on-demand deep health check request on a SageMaker HyperPod
cluster. HyperPod creates the operation when it receives your request and tracks it until HyperPod
finishes working on it", with "a record of what the request changed on each instance group"; the
failure reason is not on the operation: "Filter a request's events to find the failure reason when, for
example, a scale-up doesn't reach its target". API reference (ClusterOperationSummary,
DescribeClusterOperation, ClusterOperationScalingDetails; botocore's model is the shape): Type
``Scaling | DeepHealthCheck``, Status ``InProgress | Superseded | Done`` for the operation and for each
group's scaling detail, ``Original`` / ``Desired`` counts per group; ListClusterOperations filters by
Status, Type and CreationTimeAfter/Before, sorts by CreationTime (Descending by default) and pages.

What the sandbox records:

* UpdateCluster that changes a group's target, adds a group or deletes one: one ``Scaling`` operation
  with a detail per such group. A detail is Done once HyperPod is no longer working on the group: the
  group is InService, Degraded or Failed (for instance Spot capacity short, ``capacity``) with
  every instance it launched settled, or, for a deleted group, the group is gone. A newer request that
  scales the same group while the detail is InProgress makes it Superseded (our reading of the status
  name; AWS does not say more). The operation is InProgress while any detail is, Superseded when every
  detail was superseded, Done otherwise.
* StartClusterHealthCheck: one ``DeepHealthCheck`` operation whose details are the request's
  configurations; Done once no instance it named is still ``DeepHealthCheckInProgress``.

DescribeCluster's ``ActiveOperations`` per group (API reference, ClusterInstanceGroupDetails: "When there
is a scaling operation in progress, this map contains a key ``Scaling`` with value 1") follows the same
records.

Operations are kept with the cluster (AWS lists those of the last 14 days; the sandbox's clusters do not
live that long). An unknown OperationId is ResourceNotFound, as the API reference lists.
"""

from __future__ import annotations

from typing import Any

from sandbox.aws.sagemaker.models import (
    HyperPodCluster,
    InstanceGroup,
    Operation,
    OperationDetail,
    current_count,
    group_nodes,
    group_status,
    is_settled,
)

_SETTLING = {"Creating", "Updating", "Deleting"}


def operations(cluster: HyperPodCluster) -> list[Operation]:
    return cluster.operations


def _counts(cluster: HyperPodCluster, group: InstanceGroup | None) -> dict[str, int]:
    if group is None:
        return {"CurrentCount": 0, "TargetCount": 0}
    out = {"CurrentCount": current_count(cluster, group), "TargetCount": group.target}
    if group.spec.get("MinInstanceCount") is not None:
        out["MinCount"] = int(group.spec["MinInstanceCount"])
    return out


def _record(cluster: HyperPodCluster, operation: Operation) -> None:
    touched = {d.group for d in operation.details}
    for earlier in operations(cluster):
        for detail in earlier.details:
            if detail.status == "InProgress" and detail.group in touched:
                detail.status = "Superseded"
    operations(cluster).append(operation)


# ---------------------------------------------------------------------------------------- recording


def counts_before_update(cluster: HyperPodCluster) -> dict[str, dict[str, int]]:
    """The groups' counts before an UpdateCluster request applies (``record_update`` takes them)."""
    return {name: _counts(cluster, group) for name, group in cluster.groups.items()}


def record_update(cluster: HyperPodCluster, params: dict[str, Any], before: dict[str, dict[str, int]]) -> None:
    """One Scaling operation for the groups an applied UpdateCluster request scaled, added or deleted."""
    operation = Operation("Scaling")
    for spec in params.get("InstanceGroups") or []:
        name = spec["InstanceGroupName"]
        group = cluster.groups[name]
        was = before.get(name, {"CurrentCount": 0, "TargetCount": 0})
        if name in before and was["TargetCount"] == group.target:
            continue  # the group is listed but not scaled
        desired = {k: v for k, v in _counts(cluster, group).items() if k != "CurrentCount"}
        operation.details.append(OperationDetail(name, was, desired))
    for name in params.get("InstanceGroupsToDelete") or []:
        operation.details.append(OperationDetail(name, before[name], {"TargetCount": 0}, deleted=True))
    if operation.details:
        _record(cluster, operation)


def record_health_check(cluster: HyperPodCluster, params: dict[str, Any]) -> None:
    """One DeepHealthCheck operation for the instances a StartClusterHealthCheck request named."""
    configs = [dict(c) for c in params.get("DeepHealthCheckConfigurations") or []]
    ids = [
        node_id
        for c in configs
        for node_id in (c.get("InstanceIds") or [n.instance_id for n in group_nodes(cluster, c["InstanceGroupName"])])
    ]
    _record(cluster, Operation("DeepHealthCheck", health_checks=configs, instance_ids=ids))


def settle(cluster: HyperPodCluster) -> None:
    """Move each operation on as the groups settle (runs on every look at the cluster)."""
    for operation in operations(cluster):
        if operation.type == "DeepHealthCheck" and not operation.done:
            nodes = [cluster.nodes.get(i) for i in operation.instance_ids]
            operation.done = not any(n and n.state()[0] == "DeepHealthCheckInProgress" for n in nodes)
        for detail in operation.details:
            if detail.status != "InProgress":
                continue
            group = cluster.groups.get(detail.group)
            if detail.deleted:
                finished = group is None
            else:
                finished = (
                    group is not None
                    and group_status(cluster, group) not in _SETTLING
                    and all(is_settled(n) for n in group_nodes(cluster, detail.group))
                )
            if finished:
                detail.status = "Done"


def active_operations(cluster: HyperPodCluster, group: InstanceGroup, out: dict[str, Any]) -> None:
    """DescribeCluster's ``ActiveOperations`` of a group, while a scaling detail of it is in progress."""
    if any(d.group == group.name and d.status == "InProgress" for o in operations(cluster) for d in o.details):
        out["ActiveOperations"] = {"Scaling": 1}
