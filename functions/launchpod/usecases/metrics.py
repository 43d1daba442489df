"""Metrics as numbers and charts: a node's GPUs (utilisation, memory, power, XID) and EFA, a job's GPUs, an
endpoint's request rate, latency and time to first token, the cluster's GPU utilisation by instance group and
its idle GPUs; and idle capacity with its cost. All read from the Amazon Managed Prometheus workspace the
HyperPod observability add-on writes to (domain.metrics.queries); without it, each answer says so
(``available`` false) and what to turn on. A job's loss and throughput are read from the MLflow run it logs
to (domain.metrics.training), with or without the add-on."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from launchpod.contracts.metrics import (
    EndpointMetricsInput,
    IdleCapacityInput,
    IdleCapacityView,
    IdleNodeView,
    JobMetricsInput,
    MetricSeriesView,
    MetricsRange,
    MetricsView,
    NodeMetricsInput,
)
from launchpod.domain import mlflow as mlflow_domain
from launchpod.domain.errors import InvalidInput, LaunchpodError, NotFound, next_step
from launchpod.domain.jobs.manifests import JOB_LABEL
from launchpod.domain.metrics import idle, prices, queries, training
from launchpod.domain.metrics import series as shaped
from launchpod.domain.mlflow import MetricPoint
from launchpod.domain.nodes.views import GPU, GROUP_LABEL, instance_of
from launchpod.runtime import wiring
from launchpod.usecases import provisioning
from launchpod.usecases.ports import EksClusters, KubeLister, MlflowRuns, PrometheusQueries

MAX_POINTS = 11_000  # Prometheus refuses more points per series in one range query
IDLE_LOOKBACK = 24 * 3600
IDLE_STEP = 60
RAY_ORIGIN_LABEL = "ray.io/originated-from-cr-name"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


class EndpointLookup(Protocol):
    """One endpoint Launchpod deployed on a cluster (adapters.k8s.endpoints), or None."""

    def endpoint(self, cluster: str, name: str) -> Any: ...


@dataclass(frozen=True)
class MetricsPorts:
    eks: EksClusters
    prometheus: PrometheusQueries
    kube: KubeLister
    endpoints: EndpointLookup
    clock: Callable[[], float] = field(default=time.time)
    runs: MlflowRuns | None = None  # the job's MLflow run, for its loss and throughput


def real() -> MetricsPorts:
    """The deployed adapters (runtime.wiring)."""
    return MetricsPorts(
        eks=wiring.eks(),
        prometheus=wiring.amp(),
        kube=wiring.kube_items(),
        endpoints=wiring.kube_endpoints(),
        runs=wiring.mlflow(),
    )


def _workspace(name: str, ports: MetricsPorts) -> str | None:
    provisioning.require_active(name, "metrics need", eks_clusters=ports.eks)
    return queries.workspace(ports.eks.addons(name))


def _range(request: MetricsRange, ports: MetricsPorts) -> tuple[float, float, int]:
    # whole seconds: Prometheus steps from start while start + k * step <= end, in milliseconds, so an end a
    # fraction of a millisecond short of start + n * step loses its last point
    if request.start is not None and request.end is not None and request.end <= request.start:
        raise InvalidInput(
            f"end ({request.end.isoformat()}) must be after start ({request.start.isoformat()}).",
            field="query.end",
            rule="metrics_window",
        )
    end = math.floor(request.end.timestamp() if request.end else ports.clock())
    start = math.floor(request.start.timestamp()) if request.start else end - request.minutes * 60
    step = request.step or max(1, math.ceil((end - start) / 120))
    if (end - start) / step > MAX_POINTS:
        raise InvalidInput(
            f"{int(end - start)} s every {step} s is more than {MAX_POINTS} points; raise step to at least"
            f" {math.ceil((end - start) / MAX_POINTS)}.",
            field="step",
            rule="max_points",
        )
    return end - ((end - start) // step) * step, end, step  # the last point is at end


def _gpu_nodes(name: str, ports: MetricsPorts) -> list[dict[str, Any]]:
    return [
        n for n in ports.kube(name, "Node") if int(str(((n.get("status") or {}).get("capacity") or {}).get(GPU) or 0))
    ]


def _answer(
    name: str,
    subject: str,
    request: MetricsRange,
    found: list[queries.Query],
    ports: MetricsPorts,
    endpoint: str | None,
) -> MetricsView:
    start, end, step = _range(request, ports)
    if endpoint is None:
        return MetricsView(
            cluster=name, subject=subject, start=start, end=end, step=step, available=False, series=[],
            message=f"{name} has no metrics to read: {queries.enable_hint(name)}.",
        )  # fmt: skip
    out = []
    for query in found:
        for result in ports.prometheus.query_range(endpoint, query.promql, start, end, step):
            labels = {k: v for k, v in result.labels.items() if k != "__name__"}
            out.append(shaped.view(query.metric, query.unit, labels, shaped.points_of(result), request.points))
    message = None if out else f"The workspace has no samples of {subject} in this range."
    return MetricsView(
        cluster=name, subject=subject, start=start, end=end, step=step, available=True, series=out, message=message
    )


def node_metrics(request: NodeMetricsInput, *, ports: MetricsPorts) -> MetricsView:
    endpoint = _workspace(request.name, ports)
    node = next((n for n in ports.kube(request.name, "Node") if instance_of(n) == request.nodeId), None)
    if node is None:
        raise NotFound(
            f"{request.name} has no node {request.nodeId}; choose one of its nodes.",
            details=[next_step(f"GET /api/clusters/{request.name}/nodes")],
        )
    host = node["metadata"]["name"]
    _, _, step = _range(request, ports)
    return _answer(request.name, f"node {request.nodeId}", request, queries.node(host, step), ports, endpoint)


def job_metrics(request: JobMetricsInput, *, ports: MetricsPorts) -> MetricsView:
    endpoint = _workspace(request.name, ports)
    pods = [
        p
        for p in ports.kube(request.name, "Pod")
        if (p.get("metadata") or {}).get("namespace") == request.namespace
        and request.jobName in {(p["metadata"].get("labels") or {}).get(k) for k in (JOB_LABEL, RAY_ORIGIN_LABEL)}
    ]
    nodes = sorted({n for p in pods if (n := (p.get("spec") or {}).get("nodeName"))})
    if not nodes:
        raise NotFound(
            f"{request.name} has no pods of job {request.jobName} in {request.namespace} on a node (not submitted,"
            " not scheduled yet, or its pods are gone); read the job for its status."
        )
    subject = f"job {request.namespace}/{request.jobName}"
    view = _answer(request.name, subject, request, queries.job(nodes), ports, endpoint)
    logged = _training(pods, request, view, ports)
    if logged:
        view.series.extend(logged)
        view.message = None if view.available else view.message
    if logged is not None and not any(s.metric == training.THROUGHPUT for s in logged):
        note = f"The job logs no throughput to MLflow: {training.THROUGHPUT_HINT}."
        view.message = f"{view.message} {note}" if view.message else note
    return view


def _training(
    pods: list[dict[str, Any]], request: JobMetricsInput, view: MetricsView, ports: MetricsPorts
) -> list[MetricSeriesView] | None:
    """The job's loss and throughput as it logs them to MLflow (the newest run of its experiment, the
    MLFLOW_TRACKING_URI and MLFLOW_EXPERIMENT_NAME Launchpod gives its pods; keys: domain.metrics.training),
    within the view's range; [] when it logs neither there yet; None when it has no MLflow to log to, or MLflow
    does not answer (the GPU metrics still do)."""
    containers = [c for p in pods for c in (p.get("spec") or {}).get("containers") or []]
    env = {e.get("name"): str(e.get("value", "")) for c in containers[:1] for e in c.get("env") or []}
    arn, experiment = env.get(mlflow_domain.TRACKING_URI), env.get(mlflow_domain.EXPERIMENT)
    if ports.runs is None or not arn or not experiment:
        return None
    try:
        run = ports.runs.latest_run(arn, experiment)
        if run is None:
            return []
        run_id = run.run_id
        found = []
        loss = ports.runs.metric_history(arn, run_id, training.LOSS)
        if loss:
            labels = {"source": "mlflow", "run": run_id}
            found.append(shaped.view(training.LOSS, "loss", labels, _within(loss, view), request.points))
        for key, unit in training.THROUGHPUT_KEYS:  # the first key the run has (one call per key until then)
            history = ports.runs.metric_history(arn, run_id, key)
            if history:
                labels = {"source": "mlflow", "run": run_id, "key": key}
                found.append(shaped.view(training.THROUGHPUT, unit, labels, _within(history, view), request.points))
                break
    except LaunchpodError:  # MLflow unreachable: the GPU metrics still answer
        return None
    return found


def _within(history: list[MetricPoint], view: MetricsView) -> list[tuple[float, float]]:
    """MLflow's metric history within the view's range, as (unix seconds, value) in the order it was logged:
    by time, then step (a fast loop logs several steps in one millisecond)."""
    logged = sorted(
        (m.timestamp_ms, m.step, m.value)
        for m in history
        if view.start <= m.timestamp_ms / 1000 <= view.end + view.step
    )
    return [(t / 1000, value) for t, _, value in logged]


def endpoint_metrics(request: EndpointMetricsInput, *, ports: MetricsPorts) -> MetricsView:
    workspace = _workspace(request.name, ports)
    found_endpoint = ports.endpoints.endpoint(request.name, request.endpoint)
    if found_endpoint is None or found_endpoint.namespace != request.namespace:
        raise NotFound(
            f"{request.name} has no endpoint {request.endpoint} in {request.namespace} deployed by Launchpod; "
            "list the cluster's endpoints for their names."
        )
    _, _, step = _range(request, ports)
    found = queries.endpoint(request.namespace, request.endpoint, step, str(found_endpoint.kind))
    return _answer(request.name, f"endpoint {request.namespace}/{request.endpoint}", request, found, ports, workspace)


def cluster_metrics(request: MetricsRange, *, ports: MetricsPorts) -> MetricsView:
    """GPU utilisation per instance group (series labelled instanceGroup) and the idle GPUs of the cluster."""
    endpoint = _workspace(request.name, ports)
    nodes = _gpu_nodes(request.name, ports)
    subject = f"cluster {request.name}"
    if endpoint is None or not nodes:
        view = _answer(request.name, subject, request, [], ports, endpoint)
        if endpoint is not None:
            view.message = f"{request.name} has no GPU nodes."
        return view
    start, end, step = _range(request, ports)
    names = [n["metadata"]["name"] for n in nodes]
    group_of = {n["metadata"]["name"]: str((n["metadata"].get("labels") or {}).get(GROUP_LABEL) or "") for n in nodes}
    utilization, idle_gpus = queries.cluster(names)
    results = ports.prometheus.query_range(endpoint, utilization.promql, start, end, step)
    out = [
        shaped.view(utilization.metric, utilization.unit, {"instanceGroup": group}, points, request.points)
        for group, points in sorted(shaped.by_group(results, group_of).items())
    ]
    counted = ports.prometheus.query_range(endpoint, idle_gpus.promql, start, end, step)
    # count() over no idle GPU is an empty vector, not 0: fill those instants with 0 from the utilisation's
    counted_points = dict(shaped.points_of(counted[0])) if counted else {}
    instants = sorted({t for r in results for t, _ in shaped.points_of(r)})
    idle_points = [(t, counted_points.get(t, 0.0)) for t in instants]
    out.append(shaped.view(idle_gpus.metric, idle_gpus.unit, {}, idle_points, request.points))
    message = None if instants else f"The workspace has no samples of {subject} in this range."
    return MetricsView(
        cluster=request.name, subject=subject, start=start, end=end, step=step, available=True, series=out,
        message=message,
    )  # fmt: skip


def idle_capacity(request: IdleCapacityInput, *, ports: MetricsPorts) -> IdleCapacityView:
    """Nodes whose every GPU has been idle for at least thresholdMinutes (looking back 24 hours at one-minute
    steps), with their instance type's hourly price."""
    endpoint = _workspace(request.name, ports)
    if endpoint is None:
        return IdleCapacityView(
            cluster=request.name,
            thresholdMinutes=request.thresholdMinutes,
            priceSource=prices.SOURCE,
            available=False,
            nodes=[],
            idleGpus=0,
            usdPerHour=0.0,
            message=f"{request.name} has no metrics to tell idle GPUs by: {queries.enable_hint(request.name)}.",
        )
    nodes = {n["metadata"]["name"]: n for n in _gpu_nodes(request.name, ports)}
    now = math.floor(ports.clock())  # whole seconds: the range's last point is now (see _range)
    found = []
    if nodes:
        query = queries.node_utilization(list(nodes))
        for result in ports.prometheus.query_range(endpoint, query.promql, now - IDLE_LOOKBACK, now, IDLE_STEP):
            host = str(result.labels.get("Hostname"))
            since = idle.idle_since(shaped.points_of(result))
            node = nodes.get(host)
            if node is None or since is None or now - since < request.thresholdMinutes * 60:
                continue
            labels = node["metadata"].get("labels") or {}
            instance_type = labels.get(INSTANCE_TYPE_LABEL)
            found.append(
                IdleNodeView(
                    nodeId=instance_of(node),
                    kubernetesNode=host,
                    instanceGroup=labels.get(GROUP_LABEL),
                    instanceType=instance_type,
                    gpus=int(str(((node.get("status") or {}).get("capacity") or {}).get(GPU) or 0)),
                    idleSince=since,
                    idleMinutes=int((now - since) // 60),
                    usdPerHour=prices.hourly(instance_type),
                )
            )
    found.sort(key=lambda n: n.idleSince)
    message = None if found else f"No GPU node of {request.name} has been idle for {request.thresholdMinutes} minutes."
    return IdleCapacityView(
        cluster=request.name,
        thresholdMinutes=request.thresholdMinutes,
        priceSource=prices.SOURCE,
        available=True,
        nodes=found,
        idleGpus=sum(n.gpus for n in found),
        usdPerHour=round(math.fsum(n.usdPerHour or 0.0 for n in found), 2),
        message=message,
    )
