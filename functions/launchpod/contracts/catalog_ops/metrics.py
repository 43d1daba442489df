"""Metrics: GPU, EFA and serving metrics per node, job, endpoint and cluster, and idle capacity with its cost,
from the HyperPod observability add-on's Amazon Managed Prometheus workspace (usecases/metrics.py)."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry
from launchpod.contracts.common import Role
from launchpod.contracts.metrics import (
    EndpointMetricsInput,
    IdleCapacityInput,
    IdleCapacityView,
    JobMetricsInput,
    MetricsRange,
    MetricsView,
    NodeMetricsInput,
)

_NUMBERS = (
    " Each series has min/avg/max/last over the range; points=true adds the points. Without the HyperPod"
    " observability add-on, available is false and message says what to turn on."
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "get_cluster_gpu_metrics",
        "GET",
        "/api/clusters/{name}/metrics/gpu",
        "GPU utilisation (percent) per instance group and the number of idle GPUs over a time range." + _NUMBERS,
        MetricsRange,
        MetricsView,
        Role.VIEWER,
        tags=("metrics",),
    ),
    CatalogEntry(
        "get_node_metrics",
        "GET",
        "/api/clusters/{name}/nodes/{nodeId}/metrics",
        "One node's GPU utilisation (percent), GPU memory used (MiB), power (W), last XID error and EFA bytes/s over a"
        " time range." + _NUMBERS,
        NodeMetricsInput,
        MetricsView,
        Role.VIEWER,
        tags=("metrics",),
    ),
    CatalogEntry(
        "get_job_metrics",
        "GET",
        "/api/clusters/{name}/jobs/{jobName}/metrics",
        "A training job's GPUs: utilisation (percent) and memory used (MiB) of each node its pods run on, over a time"
        " range; and, from the MLflow run it logs to (with or without the add-on), its loss and its throughput"
        " (metric throughput; unit tokens/s, tokens/s/GPU or samples/s; labels.key the logged key)." + _NUMBERS,
        JobMetricsInput,
        MetricsView,
        Role.VIEWER,
        tags=("metrics",),
    ),
    CatalogEntry(
        "get_endpoint_metrics",
        "GET",
        "/api/clusters/{name}/endpoints/{endpoint}/metrics",
        "An inference endpoint's request rate (requests/s), latency p50/p95 and time to first token p50 (ms) over"
        " a time range." + _NUMBERS,
        EndpointMetricsInput,
        MetricsView,
        Role.VIEWER,
        tags=("metrics",),
    ),
    CatalogEntry(
        "list_idle_capacity",
        "GET",
        "/api/clusters/{name}/idle-capacity",
        "GPU nodes whose every GPU has been idle for at least thresholdMinutes (within the last 24 h), with how"
        " long and their on-demand price per hour where the price table has the instance type.",
        IdleCapacityInput,
        IdleCapacityView,
        Role.VIEWER,
        tags=("metrics",),
    ),
)
