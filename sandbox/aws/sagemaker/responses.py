"""moto response methods for the HyperPod API (clusters, nodes and their moves, events, deep health checks,
cluster operations): each runs under the lock, then pushes changed Node lists."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from moto.core.responses import ActionResult
from moto.sagemaker.exceptions import ResourceNotFound
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.sagemaker.clusters import (
    create_cluster,
    delete_cluster,
    find_cluster,
    update_cluster,
    update_cluster_software,
)
from sandbox.aws.sagemaker.common import LOCK, drop_empty, invalid, paginate, request_params
from sandbox.aws.sagemaker.health_checks import start_cluster_health_check
from sandbox.aws.sagemaker.kube_nodes import pending_pushes, push_nodes
from sandbox.aws.sagemaker.lifecycle import settle_cluster
from sandbox.aws.sagemaker.models import HyperPodCluster, Operation, hyperpod_clusters_of
from sandbox.aws.sagemaker.moves import move_nodes
from sandbox.aws.sagemaker.node_operations import batch_add_nodes, batch_node_operation
from sandbox.aws.sagemaker.views import describe, event_summary, node_details, node_summary

T = TypeVar("T")


def run_response(
    self: SageMakerResponse, work: Callable[[SageMakerModelBackend], tuple[Any, list[str]]]
) -> ActionResult:
    """Run ``work`` under the lock, then push changed Node lists; ``work`` returns (result, EKS names)."""
    backend = self.sagemaker_backend
    with LOCK:
        result, eks_clusters = work(backend)
        pending = pending_pushes(backend, eks_clusters)
    push_nodes(pending)
    return ActionResult(result)


def _responds(
    work: Callable[[SageMakerResponse, SageMakerModelBackend], tuple[Any, list[str]]],
) -> Callable[[SageMakerResponse], ActionResult]:
    """The response method that runs ``work`` through ``run_response``."""

    def respond(self: SageMakerResponse) -> ActionResult:
        return run_response(self, lambda backend: work(self, backend))

    respond.__name__ = work.__name__
    return respond


def _about_cluster(
    read: Callable[[SageMakerResponse, HyperPodCluster], Any],
) -> Callable[[SageMakerResponse], ActionResult]:
    """The response method of a call about the one cluster its ClusterName names: ``read`` answers from it."""

    def work(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = find_cluster(backend, self._get_param("ClusterName"))
        return read(self, cluster), eks_of(cluster)

    work.__name__ = read.__name__
    return _responds(work)


def _answers_arn(
    change: Callable[[SageMakerModelBackend, dict[str, Any]], HyperPodCluster],
) -> Callable[[SageMakerResponse], ActionResult]:
    """The response method of a call that changes one cluster as its parameters say and answers its ARN."""

    def work(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = change(backend, request_params(self))
        return {"ClusterArn": cluster.arn}, eks_of(cluster)

    work.__name__ = change.__name__
    return _responds(work)


def eks_of(*clusters: HyperPodCluster) -> list[str]:
    return [c.eks_cluster_name for c in clusters if c.eks_cluster_name]


@_about_cluster
def _r_describe_cluster(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    return describe(cluster)


@_responds
def _r_list_clusters(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
    clusters = [c for c in hyperpod_clusters_of(backend) if settle_cluster(backend, c)]
    name_contains = self._get_param("NameContains")
    after, before = self._get_param("CreationTimeAfter"), self._get_param("CreationTimeBefore")
    plan = self._get_param("TrainingPlanArn")
    if name_contains:
        clusters = [c for c in clusters if name_contains in c.cluster_name]
    clusters = between(clusters, lambda c: c.creation_time, after, before)
    if plan:
        clusters = [c for c in clusters if any(g.spec.get("TrainingPlanArn") == plan for g in c.groups.values())]
    reverse = self._get_param("SortOrder") == "Descending"
    if self._get_param("SortBy") == "NAME":
        clusters.sort(key=lambda c: c.cluster_name, reverse=reverse)
    else:
        clusters.sort(key=lambda c: c.creation_time, reverse=reverse)
    page, token = paginate(clusters, self._get_param("MaxResults"), self._get_param("NextToken"))
    return drop_empty({"ClusterSummaries": [c.summary() for c in page], "NextToken": token}), eks_of(*clusters)


def epoch_seconds(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    try:
        return float(value)
    except (TypeError, ValueError):
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def between(items: list[T], time_of: Callable[[T], datetime], after: Any, before: Any) -> list[T]:
    """The items whose time falls strictly after ``after`` and before ``before`` (a List call's
    ...TimeAfter and ...TimeBefore), either of which may be absent."""
    if after:
        items = [i for i in items if time_of(i).timestamp() > epoch_seconds(after)]
    if before:
        items = [i for i in items if time_of(i).timestamp() < epoch_seconds(before)]
    return items


@_responds
def _r_batch_add_cluster_nodes(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
    cluster, result = batch_add_nodes(backend, request_params(self))
    return result, eks_of(cluster)


@_responds
def _r_move_cluster_nodes(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
    touched, result = move_nodes(backend, request_params(self))
    return result, eks_of(*touched)


@_responds
def _r_delete_cluster(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
    cluster = delete_cluster(backend, self._get_param("ClusterName"))
    return {"ClusterArn": cluster.arn}, eks_of(cluster)


@_about_cluster
def _r_list_cluster_nodes(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    nodes = list(cluster.nodes.values())
    contains = self._get_param("InstanceGroupNameContains")
    after, before = self._get_param("CreationTimeAfter"), self._get_param("CreationTimeBefore")
    if contains:
        nodes = [n for n in nodes if contains in n.group]
    nodes = between(nodes, lambda n: n.launch_time, after, before)
    reverse = self._get_param("SortOrder") == "Descending"
    if self._get_param("SortBy") == "NAME":
        nodes.sort(key=lambda n: (n.group, n.instance_id), reverse=reverse)
    else:
        nodes.sort(key=lambda n: n.launch_time, reverse=reverse)
    page, token = paginate(nodes, self._get_param("MaxResults"), self._get_param("NextToken"))
    result = {"ClusterNodeSummaries": [node_summary(cluster, n) for n in page], "NextToken": token}
    return drop_empty(result)


@_about_cluster
def _r_describe_cluster_node(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    node_id = self._get_param("NodeId")
    if not node_id:
        raise invalid("NodeId is required (this sandbox does not track NodeLogicalId).")
    node = cluster.nodes.get(node_id)
    if node is None:
        raise ResourceNotFound(message=f"Node {node_id} not found in cluster {cluster.cluster_name}.")
    return {"NodeDetails": node_details(cluster, node)}


def _batch(operation: str) -> Callable[[SageMakerResponse], ActionResult]:
    def work(self: SageMakerResponse, backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        node_ids = list(self._get_param("NodeIds") or [])
        logical = list(self._get_param("NodeLogicalIds") or [])
        if not node_ids and not logical:
            raise invalid("Specify NodeIds or NodeLogicalIds.")
        cluster, ok, failed = batch_node_operation(backend, self._get_param("ClusterName"), node_ids, operation)
        result: dict[str, Any] = {"Successful": ok, "Failed": failed}
        if logical:  # logical ids are not tracked: every one is reported as unknown
            code_field = "Code" if operation == "delete" else "ErrorCode"
            code = "NodeIdNotFound" if operation == "delete" else "InstanceIdNotFound"
            result["SuccessfulNodeLogicalIds"] = []
            result["FailedNodeLogicalIds"] = [
                {"NodeLogicalId": lid, code_field: code, "Message": f"Node logical id {lid} not found."}
                for lid in logical
            ]
        return result, eks_of(cluster)

    work.__name__ = f"batch_{operation}_cluster_nodes"
    return _responds(work)


def _newest_page(
    self: SageMakerResponse,
    key: str,
    items: list[T],
    summary: Callable[[T], dict[str, Any]],
    time_of: Callable[[T], datetime],
    window: str,
    **equal: Any,
) -> dict[str, Any]:
    """A list of a cluster's events or operations: those whose attributes equal the request's filters
    (``equal``: attribute -> value; an absent one filters nothing), within ``<window>After``..``<window>Before``,
    newest first unless SortOrder is Ascending; one page of their summaries under ``key``."""
    for attribute, wanted in equal.items():
        if wanted:
            items = [i for i in items if getattr(i, attribute) == wanted]
    items = between(items, time_of, self._get_param(f"{window}After"), self._get_param(f"{window}Before"))
    items.sort(key=time_of, reverse=self._get_param("SortOrder") != "Ascending")
    page, token = paginate(items, self._get_param("MaxResults"), self._get_param("NextToken"))
    return drop_empty({key: [summary(i) for i in page], "NextToken": token})


def _one_of(cluster: HyperPodCluster, items: list[T], attribute: str, wanted: Any, what: str) -> T:
    """The cluster's event or operation whose ``attribute`` is ``wanted``; ResourceNotFound otherwise."""
    found = next((i for i in items if getattr(i, attribute) == wanted), None)
    if found is None:
        raise ResourceNotFound(message=f"{what} {wanted} not found in cluster {cluster.cluster_name}.")
    return found


def _keeps_events(cluster: HyperPodCluster) -> None:
    """HyperPod keeps cluster events only for clusters with continuous provisioning: ListClusterEvents and
    DescribeClusterEvent are "only supported when the NodeProvisioningMode is set to Continuous" (API reference;
    the cluster events reference says the same). The error AWS answers is not documented: ours is a
    ValidationException in the reference's words."""
    if cluster.settings.get("NodeProvisioningMode") != "Continuous":
        raise invalid(
            f"Cluster {cluster.cluster_name}: this functionality is only supported when the NodeProvisioningMode "
            "is set to Continuous."
        )


@_about_cluster
def _r_list_cluster_events(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    _keeps_events(cluster)
    return _newest_page(
        self,
        "Events",
        list(cluster.events),
        lambda e: event_summary(cluster, e),
        lambda e: e.time,
        "EventTime",
        group=self._get_param("InstanceGroupName"),
        instance_id=self._get_param("NodeId"),
        resource_type=self._get_param("ResourceType"),
    )


@_about_cluster
def _r_describe_cluster_event(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    _keeps_events(cluster)
    event = _one_of(cluster, cluster.events, "event_id", self._get_param("EventId"), "Event")
    details = event_summary(cluster, event)
    if event.metadata:
        details["EventDetails"] = {"EventMetadata": event.metadata}
    return {"EventDetails": details}


def _operation_summary(cluster: HyperPodCluster, operation: Operation) -> dict[str, Any]:
    return {
        "OperationId": operation.operation_id,
        "ClusterArn": cluster.arn,
        "Type": operation.type,
        "Status": operation.status,
        "CreationTime": operation.creation_time,
    }


def _operation_described(cluster: HyperPodCluster, operation: Operation) -> dict[str, Any]:
    out = _operation_summary(cluster, operation)
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


@_about_cluster
def _r_list_cluster_operations(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    return _newest_page(
        self,
        "ClusterOperationSummaries",
        list(cluster.operations),
        lambda o: _operation_summary(cluster, o),
        lambda o: o.creation_time,
        "CreationTime",
        status=self._get_param("Status"),
        type=self._get_param("Type"),
    )


@_about_cluster
def _r_describe_cluster_operation(self: SageMakerResponse, cluster: HyperPodCluster) -> Any:
    operation = _one_of(cluster, cluster.operations, "operation_id", self._get_param("OperationId"), "Operation")
    return _operation_described(cluster, operation)


RESPONSE_METHODS: dict[str, Callable[[SageMakerResponse], ActionResult]] = {
    "create_cluster": _answers_arn(create_cluster),
    "describe_cluster": _r_describe_cluster,
    "list_clusters": _r_list_clusters,
    "update_cluster": _answers_arn(update_cluster),
    "update_cluster_software": _answers_arn(update_cluster_software),
    "batch_add_cluster_nodes": _r_batch_add_cluster_nodes,
    "move_cluster_nodes": _r_move_cluster_nodes,
    "delete_cluster": _r_delete_cluster,
    "list_cluster_nodes": _r_list_cluster_nodes,
    "describe_cluster_node": _r_describe_cluster_node,
    "batch_reboot_cluster_nodes": _batch("reboot"),
    "batch_replace_cluster_nodes": _batch("replace"),
    "batch_delete_cluster_nodes": _batch("delete"),
    "list_cluster_events": _r_list_cluster_events,
    "describe_cluster_event": _r_describe_cluster_event,
    "start_cluster_health_check": _answers_arn(start_cluster_health_check),
    "list_cluster_operations": _r_list_cluster_operations,
    "describe_cluster_operation": _r_describe_cluster_operation,
}
