"""Metrics of nodes, jobs, endpoints and the cluster, read from the HyperPod observability add-on's Amazon
Managed Prometheus workspace; and the idle capacity they show."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract, K8sName
from launchpod.contracts.inference import EndpointName
from launchpod.contracts.nodes import NodeId
from launchpod.contracts.training_plans import IsoDateTime


class MetricsRange(Contract):
    """A time range and step. Without start: the last ``minutes`` up to end (now by default)."""

    name: ClusterName
    start: IsoDateTime | None = Field(default=None, description="ISO 8601")
    end: IsoDateTime | None = Field(default=None, description="ISO 8601; default now")
    minutes: int = Field(default=60, ge=1, le=44640, description="back from end, without start")
    step: int | None = Field(default=None, ge=1, le=86400, description="seconds; default ~120 steps")
    points: bool = Field(default=False, description="add points to the summaries")
    # end after start (contracts.refusals: metrics_window) is checked by usecases.metrics: the routes build this
    # from query parameters, where a validator's error would not answer as the 422 it is


class NodeMetricsInput(MetricsRange):
    nodeId: NodeId


class JobMetricsInput(MetricsRange):
    jobName: K8sName
    namespace: K8sName = "default"


class EndpointMetricsInput(MetricsRange):
    endpoint: EndpointName
    namespace: K8sName = "default"


class MetricSummary(Contract):
    min: float | None
    avg: float | None
    max: float | None
    last: float | None
    lastAt: float | None = Field(description="unix seconds of the last point")


class MetricSeriesView(Contract):
    metric: str = Field(description="e.g. gpuUtilization, gpuMemoryUsed, requestRate, latencyP95")
    unit: str
    labels: dict[str, str] = Field(description="what the series is of: Hostname (a node), instanceGroup, ...")
    summary: MetricSummary
    points: list[tuple[float, float]] | None = Field(default=None, description="[unix seconds, value] (points=true)")


class MetricsView(Contract):
    cluster: str
    subject: str = Field(description="what the metrics are of: node, job, endpoint or cluster, and its name")
    start: float
    end: float
    step: int
    available: bool = Field(description="false: the cluster has no metrics to read (message says what to turn on)")
    series: list[MetricSeriesView]
    message: str | None = None


class IdleCapacityInput(Contract):
    name: ClusterName
    thresholdMinutes: int = Field(
        default=30, ge=0, le=1440, description="idle at least this long (0: every GPU node idle now)"
    )


class IdleNodeView(Contract):
    nodeId: str | None
    kubernetesNode: str
    instanceGroup: str | None
    instanceType: str | None
    gpus: int
    idleSince: float = Field(description="unix seconds since every GPU of the node is idle (within the last 24 h)")
    idleMinutes: int
    usdPerHour: float | None = Field(description="the instance type's on-demand price; null when not in the table")


class IdleCapacityView(Contract):
    cluster: str
    thresholdMinutes: int
    available: bool
    nodes: list[IdleNodeView]
    idleGpus: int
    usdPerHour: float = Field(description="what the idle nodes with a known price cost per hour together")
    priceSource: str
    message: str | None = None
