"""HyperPod-managed Karpenter for a cluster's instance groups (HyperPod groups only, never plain EC2)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.autoscaling import AutoscalingInput, AutoscalingRequest
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.entrypoints.api.routing import ClusterPath, route, started_or_noop
from launchpod.usecases import autoscaling

router = APIGatewayRouter()


@route(router, "set_autoscaling")
def set_autoscaling(name: ClusterPath, body: AutoscalingRequest) -> Response[OperationAcceptedView | NoopView]:
    request = AutoscalingInput(name=name, **body.model_dump())
    done = autoscaling.set_autoscaling(request, router.context["principal"], ports=autoscaling.real())
    return started_or_noop(done)
