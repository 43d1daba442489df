"""HyperPod-managed Karpenter for a cluster's instance groups (HyperPod groups only, never plain EC2)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.autoscaling import AutoscalingInput, AutoscalingRequest
from launchpod.contracts.common import ClusterName
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, LaunchpodError, NotFound
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring

router = APIGatewayRouter()


def karpenter_objects(name: str, described: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The HyperpodNodeClass and NodePool Launchpod applied, when AutoScaling is on (None, None otherwise)."""
    if (described.get("AutoScaling") or {}).get("Mode") != "Enable":
        return None, None
    try:
        return k8s.read(name, autoscaling.node_class([])), k8s.read(name, autoscaling.node_pool(0))
    except LaunchpodError:  # Karpenter's kinds are not installed yet (AutoScaling still Creating)
        return None, None


@route(router, "set_autoscaling")
def set_autoscaling(
    name: Annotated[ClusterName, Path()], body: AutoscalingRequest
) -> Response[OperationAcceptedView | NoopView]:
    request = AutoscalingInput(name=name, **body.model_dump())
    described = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if described is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    autoscaling.check_groups(request, described)
    klass, pool = karpenter_objects(name, described)
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
