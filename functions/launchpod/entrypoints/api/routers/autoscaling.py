"""HyperPod-managed Karpenter for a cluster's instance groups (HyperPod groups only, never plain EC2)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.autoscaling import AutoscalingInput, AutoscalingRequest
from launchpod.contracts.common import ClusterName
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, NotFound
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.usecases.autoscaling import karpenter_objects

router = APIGatewayRouter()


@route(router, "set_autoscaling")
def set_autoscaling(
    name: Annotated[ClusterName, Path()], body: AutoscalingRequest
) -> Response[OperationAcceptedView | NoopView]:
    request = AutoscalingInput(name=name, **body.model_dump())
    described = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if described is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    autoscaling.check_groups(request, described)
    klass, pool = karpenter_objects(name, described, read=k8s.read)
    if autoscaling.is_noop(request, described, klass, pool):
        state = "on for " + ", ".join(request.groups) if request.enabled else "off"
        return json_response(NoopView(message=f"Autoscaling is already {state}; no changes."))
    if described.get("ClusterStatus") != "InService":
        raise Conflict(
            f"The HyperPod cluster {name} is {described.get('ClusterStatus')}; change autoscaling once it is InService."
        )
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), autoscaling.plan(request), router.context["principal"]
    )
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)
