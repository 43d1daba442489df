"""Metrics per node, job, endpoint and cluster, and idle capacity; by usecases/metrics.py."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.metrics import (
    EndpointMetricsInput,
    IdleCapacityInput,
    IdleCapacityView,
    JobMetricsInput,
    MetricsRange,
    MetricsView,
    NodeMetricsInput,
)
from launchpod.contracts.nodes import NodeId
from launchpod.contracts.training_plans import IsoDateTime
from launchpod.entrypoints.api.routing import ClusterPath, EndpointPath, K8sNamePath, NamespaceQuery, route
from launchpod.usecases import metrics as cases

router = APIGatewayRouter()

Start = Annotated[IsoDateTime | None, Query()]
End = Annotated[IsoDateTime | None, Query()]
Minutes = Annotated[int, Query(ge=1, le=44640)]
Step = Annotated[int | None, Query(ge=1, le=86400)]
Points = Annotated[bool, Query()]


@route(router, "get_cluster_gpu_metrics")
def get_cluster_gpu_metrics(
    name: ClusterPath,
    start: Start = None,
    end: End = None,
    minutes: Minutes = 60,
    step: Step = None,
    points: Points = False,
) -> MetricsView:
    request = MetricsRange(name=name, start=start, end=end, minutes=minutes, step=step, points=points)
    return cases.cluster_metrics(request, ports=cases.real())


@route(router, "get_node_metrics")
def get_node_metrics(
    name: ClusterPath,
    nodeId: Annotated[NodeId, Path()],
    start: Start = None,
    end: End = None,
    minutes: Minutes = 60,
    step: Step = None,
    points: Points = False,
) -> MetricsView:
    request = NodeMetricsInput(
        name=name, nodeId=nodeId, start=start, end=end, minutes=minutes, step=step, points=points
    )
    return cases.node_metrics(request, ports=cases.real())


@route(router, "get_job_metrics")
def get_job_metrics(
    name: ClusterPath,
    jobName: K8sNamePath,
    namespace: NamespaceQuery = "default",
    start: Start = None,
    end: End = None,
    minutes: Minutes = 60,
    step: Step = None,
    points: Points = False,
) -> MetricsView:
    request = JobMetricsInput(
        name=name, jobName=jobName, namespace=namespace, start=start, end=end, minutes=minutes, step=step,
        points=points,
    )  # fmt: skip
    return cases.job_metrics(request, ports=cases.real())


@route(router, "get_endpoint_metrics")
def get_endpoint_metrics(
    name: ClusterPath,
    endpoint: EndpointPath,
    namespace: NamespaceQuery = "default",
    start: Start = None,
    end: End = None,
    minutes: Minutes = 60,
    step: Step = None,
    points: Points = False,
) -> MetricsView:
    request = EndpointMetricsInput(
        name=name, endpoint=endpoint, namespace=namespace, start=start, end=end, minutes=minutes, step=step,
        points=points,
    )  # fmt: skip
    return cases.endpoint_metrics(request, ports=cases.real())


@route(router, "list_idle_capacity")
def list_idle_capacity(
    name: ClusterPath, thresholdMinutes: Annotated[int, Query(ge=0, le=1440)] = 30
) -> IdleCapacityView:
    return cases.idle_capacity(IdleCapacityInput(name=name, thresholdMinutes=thresholdMinutes), ports=cases.real())
