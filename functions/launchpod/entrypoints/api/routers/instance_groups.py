"""Instance groups of a HyperPod cluster: list, add, change by explicit diff, delete."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupAcceptedView,
    InstanceGroupListView,
    UpdateInstanceGroupRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, ConfirmQuery, accepted, route, started_or_noop
from launchpod.usecases import instance_groups

router = APIGatewayRouter()


@route(router, "list_instance_groups")
def list_instance_groups(name: ClusterPath) -> InstanceGroupListView:
    return instance_groups.list_instance_groups(name, ports=instance_groups.real())


@route(router, "add_instance_group")
def add_instance_group(
    name: ClusterPath, request: AddInstanceGroupRequest
) -> Response[InstanceGroupAcceptedView | NoopView]:
    done = instance_groups.add_instance_group(name, request, router.context["principal"], ports=instance_groups.real())
    return started_or_noop(done)


@route(router, "update_instance_group")
def update_instance_group(
    name: ClusterPath, group: Annotated[InstanceGroupName, Path()], request: UpdateInstanceGroupRequest
) -> Response[OperationAcceptedView | NoopView]:
    done = instance_groups.update_instance_group(
        name, group, request, router.context["principal"], ports=instance_groups.real()
    )
    return started_or_noop(done)


@route(router, "delete_instance_group")
def delete_instance_group(
    name: ClusterPath, group: Annotated[InstanceGroupName, Path()], confirm: ConfirmQuery = ""
) -> Response[OperationAcceptedView]:
    operation = instance_groups.delete_instance_group(
        name, group, confirm, router.context["principal"], ports=instance_groups.real()
    )
    return accepted(operation)
