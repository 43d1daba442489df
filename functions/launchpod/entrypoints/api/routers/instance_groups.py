"""Instance groups of a HyperPod cluster: list, add, change by explicit diff, delete."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import ClusterName
from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupAcceptedView,
    InstanceGroupListView,
    UpdateInstanceGroupRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.usecases import instance_groups

router = APIGatewayRouter()


def _accepted(operation: OperationView) -> Response[Any]:
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "list_instance_groups")
def list_instance_groups(name: Annotated[ClusterName, Path()]) -> InstanceGroupListView:
    return instance_groups.list_instance_groups(name, ports=instance_groups.real())


@route(router, "add_instance_group")
def add_instance_group(
    name: Annotated[ClusterName, Path()], request: AddInstanceGroupRequest
) -> Response[InstanceGroupAcceptedView | NoopView]:
    accepted = instance_groups.add_instance_group(
        name, request, router.context["principal"], ports=instance_groups.real()
    )
    if isinstance(accepted, NoopView):
        return json_response(accepted)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "update_instance_group")
def update_instance_group(
    name: Annotated[ClusterName, Path()],
    group: Annotated[InstanceGroupName, Path()],
    request: UpdateInstanceGroupRequest,
) -> Response[OperationAcceptedView | NoopView]:
    done = instance_groups.update_instance_group(
        name, group, request, router.context["principal"], ports=instance_groups.real()
    )
    return json_response(done) if isinstance(done, NoopView) else _accepted(done)


@route(router, "delete_instance_group")
def delete_instance_group(
    name: Annotated[ClusterName, Path()],
    group: Annotated[InstanceGroupName, Path()],
    confirm: Annotated[str, Query()] = "",
) -> Response[OperationAcceptedView]:
    operation = instance_groups.delete_instance_group(
        name, group, confirm, router.context["principal"], ports=instance_groups.real()
    )
    return _accepted(operation)
