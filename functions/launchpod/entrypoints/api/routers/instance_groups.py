"""Instance groups of a HyperPod cluster: list, add, change by explicit diff, delete."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupAcceptedView,
    InstanceGroupChangeInput,
    InstanceGroupListView,
    UpdateInstanceGroupRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.instance_types import to_ec2
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.domain.instance_groups import autoscaling, changes, placement, preflight, workflow
from launchpod.domain.instance_groups.views import group_view
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.usecases.autoscaling import karpenter_objects

router = APIGatewayRouter()


def _cluster(name: str) -> dict[str, Any]:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if cluster is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    return cluster


def _in_service(name: str, cluster: dict[str, Any]) -> None:
    status = cluster.get("ClusterStatus")
    if status != "InService":
        raise Conflict(
            f"The HyperPod cluster {name} is {status}; HyperPod takes one update at a time, so change its instance"
            " groups once it is InService."
        )


def _group(name: str, cluster: dict[str, Any], group: str) -> dict[str, Any]:
    found = next((g for g in cluster.get("InstanceGroups", []) if g.get("InstanceGroupName") == group), None)
    if found is None:
        have = ", ".join(g["InstanceGroupName"] for g in cluster.get("InstanceGroups", [])) or "none"
        raise NotFound(f"{name} has no instance group {group}; it has {have}.")
    return dict(found)


def _not_karpenters(name: str, cluster: dict[str, Any], group: str, doing: str) -> None:
    """Karpenter owns a managed group's count, and a group still in its node class must not disappear."""
    if group in autoscaling.managed_groups(karpenter_objects(name, cluster, read=k8s.read)[0]):
        raise Conflict(
            f"Karpenter manages instance group {group}, so it cannot {doing}; take it out of autoscaling first "
            f"(PUT /api/clusters/{name}/autoscaling without it, or with enabled false)."
        )


def _cluster_subnets(cluster: dict[str, Any]) -> list[str]:
    return list((cluster.get("VpcConfig") or {}).get("Subnets") or [])


def _accepted(change: InstanceGroupChangeInput) -> Response[Any]:
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), workflow.plan(change), router.context["principal"]
    )
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "list_instance_groups")
def list_instance_groups(name: Annotated[ClusterName, Path()]) -> InstanceGroupListView:
    cluster = _cluster(name)
    groups = cluster.get("InstanceGroups", [])
    ids = sorted(
        set(_cluster_subnets(cluster))
        | {s for g in groups for s in (g.get("OverrideVpcConfig") or {}).get("Subnets") or []}
    )
    subnets = wiring.ec2().subnets(subnet_ids=ids) if ids else []
    zone_of = {s["SubnetId"]: s["AvailabilityZone"] for s in subnets}
    dedicated = {
        s["SubnetId"]
        for s in subnets
        if any(t["Key"] == "launchpod:purpose" and t["Value"] == workflow.SUBNET_PURPOSE for t in s.get("Tags", []))
    }
    klass, pool = karpenter_objects(name, cluster, read=k8s.read)
    managed = autoscaling.managed_groups(klass)
    return InstanceGroupListView(
        cluster=name,
        clusterStatus=cluster.get("ClusterStatus", "Unknown"),
        autoscaling=autoscaling.state_view(cluster, pool),
        items=[
            group_view(
                g, _cluster_subnets(cluster), zone_of, dedicated=dedicated, karpenter=g["InstanceGroupName"] in managed
            )
            for g in groups
        ],
    )


def _preflight_quota(name: str, instance_type: str, delta: int, group: str) -> None:
    quota = wiring.service_quotas().sagemaker_quota(preflight.quota_name(instance_type))
    used = preflight.usage(wiring.sagemaker().hyperpod_clusters(), instance_type, skip=(name, group))
    preflight.check_quota(instance_type, quota, used, delta)


@route(router, "add_instance_group")
def add_instance_group(
    name: Annotated[ClusterName, Path()], request: AddInstanceGroupRequest
) -> Response[InstanceGroupAcceptedView | NoopView]:
    cluster = _cluster(name)
    existing = next((g for g in cluster.get("InstanceGroups", []) if g.get("InstanceGroupName") == request.group), None)
    if existing is not None:  # the same add again is NOOP; a differing field is a 409 naming it
        changes.add_again(request, existing, _cluster_subnets(cluster))
        return json_response(NoopView(message=f"Instance group {request.group} already is as asked; no changes."))
    _in_service(name, cluster)
    subnets = _cluster_subnets(cluster)
    home = wiring.ec2().subnets(subnet_ids=subnets[:1])[0]["AvailabilityZone"] if subnets else None
    zone = request.availabilityZone or home
    if zone is None:
        raise InvalidInput(
            "The cluster reports no subnet; give availabilityZone.", field="body.availabilityZone", rule="zone"
        )
    notes: list[str] = []
    if request.capacityType == "trainingPlan" and request.trainingPlanArn:
        placed = preflight.training_plan_placement(
            request, wiring.sagemaker().training_plan(request.trainingPlanArn), zone, home
        )
        zone, notes = placed.zone, placed.notes
        request = request.model_copy(update={"dedicatedSubnet": placed.dedicated_subnet})
    offered = wiring.ec2().offerings([to_ec2(request.instanceType)]).get(to_ec2(request.instanceType), [])
    placement.check_placement(request, zone, home, offered)
    _preflight_quota(name, request.instanceType, request.instanceCount, request.group)
    if request.threadsPerCore is None:
        threads = placement.threads_per_core(request.instanceType)
        request = request.model_copy(update={"threadsPerCore": threads})
        notes.append(f"threadsPerCore {threads}, the default for {request.instanceType}.")
    change = InstanceGroupChangeInput(name=name, action="add", group=request.group, add=request, zone=zone)
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), workflow.plan(change), router.context["principal"]
    )
    accepted = InstanceGroupAcceptedView(operation=operation, statusUrl=operation.statusUrl, notes=notes)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "update_instance_group")
def update_instance_group(
    name: Annotated[ClusterName, Path()],
    group: Annotated[InstanceGroupName, Path()],
    request: UpdateInstanceGroupRequest,
) -> Response[OperationAcceptedView | NoopView]:
    cluster = _cluster(name)
    details = _group(name, cluster, group)
    diff = changes.diff(request, details, _cluster_subnets(cluster))
    if not diff:
        return json_response(NoopView(message=f"Instance group {group} already is as asked; no changes."))
    _in_service(name, cluster)
    if "instanceCount" in diff:
        _not_karpenters(name, cluster, group, "be scaled by hand")
        _preflight_quota(
            name, details.get("InstanceType", ""), diff["instanceCount"] - details.get("TargetCount", 0), group
        )
    return _accepted(InstanceGroupChangeInput(name=name, action="update", group=group, changes=diff))


@route(router, "delete_instance_group")
def delete_instance_group(
    name: Annotated[ClusterName, Path()],
    group: Annotated[InstanceGroupName, Path()],
    confirm: Annotated[str, Query()] = "",
) -> Response[OperationAcceptedView]:
    if confirm != group:
        raise InvalidInput(
            f"Type the group's name, {group}, as confirm to delete it; its nodes are terminated.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    cluster = _cluster(name)
    _group(name, cluster, group)
    _in_service(name, cluster)
    _not_karpenters(name, cluster, group, "be deleted")
    return _accepted(InstanceGroupChangeInput(name=name, action="delete", group=group))
