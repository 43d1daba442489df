"""ListClusterOperations / DescribeClusterOperation for the sandbox's HyperPod (moto has neither).

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
  group is InService, Degraded or Failed (for instance Spot capacity short, sandbox.aws.capacity) with
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

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from moto.core.responses import ActionResult
from moto.sagemaker.exceptions import ResourceNotFound
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws import hyperpod_health
from sandbox.aws import sagemaker as hp

_SETTLING = {"Creating", "Updating", "Deleting"}


@dataclass
class _Detail:
    group: str
    original: dict[str, int]
    desired: dict[str, int]
    deleted: bool = False
    status: str = "InProgress"


@dataclass
class _Operation:
    type: str
    details: list[_Detail] = field(default_factory=list)
    health_checks: list[dict[str, Any]] = field(default_factory=list)
    instance_ids: list[str] = field(default_factory=list)  # a deep health check's instances
    done: bool = False
    creation_time: datetime = field(default_factory=hp.utcnow)
    operation_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def status(self) -> str:
        if self.type == "DeepHealthCheck":
            return "Done" if self.done else "InProgress"
        states = {d.status for d in self.details}
        if "InProgress" in states:
            return "InProgress"
        return "Superseded" if states == {"Superseded"} else "Done"


def operations(cluster: hp.HyperPodCluster) -> list[_Operation]:
    return cluster.__dict__.setdefault("operations", [])  # type: ignore[no-any-return]


def _counts(cluster: hp.HyperPodCluster, group: hp.InstanceGroup | None) -> dict[str, int]:
    if group is None:
        return {"CurrentCount": 0, "TargetCount": 0}
    out = {"CurrentCount": int(hp.group_details(cluster, group)["CurrentCount"]), "TargetCount": group.target}
    if group.spec.get("MinInstanceCount") is not None:
        out["MinCount"] = int(group.spec["MinInstanceCount"])
    return out


def _record(cluster: hp.HyperPodCluster, operation: _Operation) -> None:
    touched = {d.group for d in operation.details}
    for earlier in operations(cluster):
        for detail in earlier.details:
            if detail.status == "InProgress" and detail.group in touched:
                detail.status = "Superseded"
    operations(cluster).append(operation)


# ---------------------------------------------------------------------------------------- recording


def _observe_update(
    backend: SageMakerModelBackend, cluster: hp.HyperPodCluster, params: dict[str, Any]
) -> Callable[[hp.HyperPodCluster], None]:
    """An UPDATE_OBSERVER: the groups' counts before UpdateCluster applies, one Scaling operation after."""
    before = {name: _counts(cluster, group) for name, group in cluster.groups.items()}

    def after(cluster: hp.HyperPodCluster) -> None:
        operation = _Operation("Scaling")
        for spec in params.get("InstanceGroups") or []:
            name = spec["InstanceGroupName"]
            group = cluster.groups[name]
            was = before.get(name, {"CurrentCount": 0, "TargetCount": 0})
            if name in before and was["TargetCount"] == group.target:
                continue  # the group is listed but not scaled
            desired = {k: v for k, v in _counts(cluster, group).items() if k != "CurrentCount"}
            operation.details.append(_Detail(name, was, desired))
        for name in params.get("InstanceGroupsToDelete") or []:
            operation.details.append(_Detail(name, before[name], {"TargetCount": 0}, deleted=True))
        if operation.details:
            _record(cluster, operation)

    return after


def _observe_health_check(cluster: hp.HyperPodCluster, params: dict[str, Any]) -> None:
    """A HEALTH_CHECK_OBSERVER: one DeepHealthCheck operation for the instances the request named."""
    configs = [dict(c) for c in params.get("DeepHealthCheckConfigurations") or []]
    ids = [
        node_id
        for c in configs
        for node_id in (
            c.get("InstanceIds") or [n.instance_id for n in hp.group_nodes(cluster, c["InstanceGroupName"])]
        )
    ]
    _record(cluster, _Operation("DeepHealthCheck", health_checks=configs, instance_ids=ids))


def _settle(backend: SageMakerModelBackend, cluster: hp.HyperPodCluster) -> None:
    """Move each operation on as the groups settle (a SETTLE_HOOK: runs on every look at the cluster)."""
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
                    and hp.group_status(cluster, group) not in _SETTLING
                    and all(hp.is_settled(n) for n in hp.group_nodes(cluster, detail.group))
                )
            if finished:
                detail.status = "Done"


def _active_operations(cluster: hp.HyperPodCluster, group: hp.InstanceGroup, out: dict[str, Any]) -> None:
    """A GROUP_DETAIL_HOOK: ``ActiveOperations`` while a scaling detail of the group is in progress."""
    if any(d.group == group.name and d.status == "InProgress" for o in operations(cluster) for d in o.details):
        out["ActiveOperations"] = {"Scaling": 1}


# ---------------------------------------------------------------------------------------- responses


def _summary(cluster: hp.HyperPodCluster, operation: _Operation) -> dict[str, Any]:
    return {
        "OperationId": operation.operation_id,
        "ClusterArn": cluster.arn,
        "Type": operation.type,
        "Status": operation.status,
        "CreationTime": operation.creation_time,
    }


def _described(cluster: hp.HyperPodCluster, operation: _Operation) -> dict[str, Any]:
    out = _summary(cluster, operation)
    if operation.type == "Scaling":
        out["ScalingDetails"] = [
            {
                "InstanceGroupName": d.group,
                "Status": d.status,
                "Original": dict(d.original),
                "Desired": dict(d.desired),
            }
            for d in operation.details
        ]
    else:
        out["DeepHealthCheckDetails"] = [dict(c) for c in operation.health_checks]
    return out


def _r_list(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = hp.find_cluster(backend, self._get_param("ClusterName"))
        found = list(operations(cluster))
        status, kind = self._get_param("Status"), self._get_param("Type")
        after, before = self._get_param("CreationTimeAfter"), self._get_param("CreationTimeBefore")
        if status:
            found = [o for o in found if o.status == status]
        if kind:
            found = [o for o in found if o.type == kind]
        if after:
            found = [o for o in found if o.creation_time.timestamp() > hp.epoch_seconds(after)]
        if before:
            found = [o for o in found if o.creation_time.timestamp() < hp.epoch_seconds(before)]
        found.sort(key=lambda o: o.creation_time, reverse=self._get_param("SortOrder") != "Ascending")
        page, token = hp.paginate(found, self._get_param("MaxResults"), self._get_param("NextToken"))
        result = {"ClusterOperationSummaries": [_summary(cluster, o) for o in page], "NextToken": token}
        return hp.drop_empty(result), hp.eks_of(cluster)

    return hp.run_response(self, work)


def _r_describe(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = hp.find_cluster(backend, self._get_param("ClusterName"))
        wanted = self._get_param("OperationId")
        operation = next((o for o in operations(cluster) if o.operation_id == wanted), None)
        if operation is None:
            raise ResourceNotFound(message=f"Operation {wanted} not found in cluster {cluster.cluster_name}.")
        return _described(cluster, operation), hp.eks_of(cluster)

    return hp.run_response(self, work)


def install() -> None:
    """Record operations from UpdateCluster and StartClusterHealthCheck; answer the two calls (idempotent)."""
    from sandbox.aws.sagemaker import views

    for hooks, hook in (
        (hp.UPDATE_OBSERVERS, _observe_update),
        (hyperpod_health.HEALTH_CHECK_OBSERVERS, _observe_health_check),
        (views.GROUP_DETAIL_HOOKS, _active_operations),
        (hp.SETTLE_HOOKS, _settle),
    ):
        if hook not in hooks:
            hooks.append(hook)
    SageMakerResponse.list_cluster_operations = _r_list  # type: ignore[attr-defined]
    SageMakerResponse.describe_cluster_operation = _r_describe  # type: ignore[attr-defined]
