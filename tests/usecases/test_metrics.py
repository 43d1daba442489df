"""Metrics through their use cases, with EKS, Kubernetes and the workspace faked: without the observability
add-on every answer says what to turn on; a node's series as numbers (points only when asked); the cluster's
GPU utilisation per instance group; idle capacity by its threshold, with the price table's cost; a job without
pods on a node and a range of too many points refused."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest
from launchpod.contracts.metrics import (
    EndpointMetricsInput,
    IdleCapacityInput,
    JobMetricsInput,
    MetricsRange,
    NodeMetricsInput,
)
from launchpod.domain.errors import InvalidInput, NotFound
from launchpod.domain.metrics import prices, queries
from launchpod.usecases import metrics as cases

from tests.fakes.eks import Eks
from tests.fakes.endpoints import Endpoints
from tests.fakes.kube_listing import KubeLists
from tests.fakes.mlflow import Runs
from tests.fakes.prometheus import Prometheus

NOW = 1_800_000_000.0
WS = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1/"
BUSY, IDLE = "i-0aaaaaaaaaaaaaaaa", "i-0bbbbbbbbbbbbbbbb"


def _node(instance: str, group: str, instance_type: str, gpus: int) -> dict:
    return {
        "metadata": {
            "name": f"hyperpod-{instance}",
            "labels": {
                "sagemaker.amazonaws.com/instance-group-name": group,
                "node.kubernetes.io/instance-type": instance_type,
            },
        },
        "spec": {"providerID": f"aws:///us-east-1a/{instance}"},
        "status": {"capacity": {"nvidia.com/gpu": str(gpus)}},
    }


NODES = [_node(BUSY, "train", "ml.p5.48xlarge", 8), _node(IDLE, "serve", "ml.g5.12xlarge", 4)]


def _ports(
    series: dict[str, list[dict]] | None = None,
    addon: bool = True,
    pods: list[dict] | None = None,
    endpoints: tuple[str, ...] = ("chat",),
    kind: str = "managed",
):
    addons = {}
    if addon:
        values = json.dumps({"ampWorkspace": {"prometheusEndpoint": WS.rstrip("/")}})
        addons[queries.ADDON] = {"status": "ACTIVE", "configurationValues": values}
    eks = Eks(clusters={"c1": {"status": "ACTIVE"}}, addons={"c1": addons})
    prometheus = Prometheus({WS.rstrip("/"): series or {}})
    kube = KubeLists({"Node": NODES, "Pod": pods or []})
    found = [SimpleNamespace(name=e, namespace="default", kind=kind) for e in endpoints]
    ports = cases.MetricsPorts(eks=eks, prometheus=prometheus, kube=kube, endpoints=Endpoints(found), clock=lambda: NOW)
    return ports, prometheus


def _util(instance: str, samples: list[tuple[float, float]]) -> dict:
    return {"metric": {"Hostname": f"hyperpod-{instance}"}, "samples": samples}


def test_without_the_add_on_each_answer_says_what_to_turn_on() -> None:
    ports, prometheus = _ports(addon=False)
    for view in (
        cases.cluster_metrics(MetricsRange(name="c1"), ports=ports),
        cases.endpoint_metrics(EndpointMetricsInput(name="c1", endpoint="chat"), ports=ports),
        cases.node_metrics(NodeMetricsInput(name="c1", nodeId=BUSY), ports=ports),
    ):
        assert view.available is False and view.series == []
        assert view.message and queries.ADDON in view.message and "Amazon Managed Prometheus workspace" in view.message
        assert "Features" in view.message
    idle = cases.idle_capacity(IdleCapacityInput(name="c1"), ports=ports)
    assert idle.available is False and queries.ADDON in (idle.message or "")
    assert prometheus.asked == []


def test_a_nodes_series_answer_min_avg_max_last_and_points_only_when_asked() -> None:
    query = queries.node(f"hyperpod-{BUSY}", 60)[0].promql
    ports, _ = _ports({query: [_util(BUSY, [(NOW - 600, 0.0), (NOW - 300, 90.0), (NOW - 120, 30.0)])]})
    request = NodeMetricsInput(name="c1", nodeId=BUSY, minutes=10, step=60)
    view = cases.node_metrics(request, ports=ports)
    (util,) = [s for s in view.series if s.metric == "gpuUtilization"]
    # instants NOW-600 .. NOW: 0 x5, 90 x3, 30 x3
    assert (util.summary.min, util.summary.max, util.summary.last) == (0.0, 90.0, 30.0)
    assert util.summary.avg == pytest.approx((0 * 5 + 90 * 3 + 30 * 3) / 11, abs=1e-4)
    assert util.points is None and util.unit == "percent"
    charted = cases.node_metrics(request.model_copy(update={"points": True}), ports=ports)
    assert charted.series[0].points is not None and len(charted.series[0].points) == 11


def test_the_clusters_gpu_utilisation_is_per_instance_group_and_idle_gpus_count_zero_when_none() -> None:
    utilization, _ = queries.cluster([f"hyperpod-{BUSY}", f"hyperpod-{IDLE}"])
    series = {utilization.promql: [_util(BUSY, [(NOW - 120, 80.0)]), _util(IDLE, [(NOW - 120, 20.0)])]}
    ports, _ = _ports(series)
    view = cases.cluster_metrics(MetricsRange(name="c1", minutes=2, step=60), ports=ports)
    groups = {s.labels.get("instanceGroup"): s.summary.last for s in view.series if s.metric == "gpuUtilization"}
    assert groups == {"train": 80.0, "serve": 20.0}
    (idle,) = [s for s in view.series if s.metric == "idleGpus"]
    assert idle.summary.max == 0.0  # count() of nothing is no series: zero, at the instants with samples


def test_idle_capacity_lists_nodes_idle_past_the_threshold_with_their_price() -> None:
    query = queries.node_utilization([f"hyperpod-{BUSY}", f"hyperpod-{IDLE}"]).promql
    since = NOW - 45 * 60
    series = {
        query: [_util(BUSY, [(NOW - 3600, 0.0), (NOW - 60, 95.0)]), _util(IDLE, [(NOW - 7200, 50.0), (since, 0.0)])]
    }
    ports, prometheus = _ports(series)
    view = cases.idle_capacity(IdleCapacityInput(name="c1", thresholdMinutes=30), ports=ports)
    (node,) = view.nodes
    assert (node.nodeId, node.instanceGroup, node.gpus, node.idleSince, node.idleMinutes) == (
        IDLE,
        "serve",
        4,
        since,
        45,
    )
    assert node.usdPerHour == prices.USD_PER_HOUR["ml.g5.12xlarge"] == view.usdPerHour and view.idleGpus == 4
    assert prometheus.asked[-1][2:] == (NOW - cases.IDLE_LOOKBACK, NOW, cases.IDLE_STEP)
    longer = cases.idle_capacity(IdleCapacityInput(name="c1", thresholdMinutes=60), ports=ports)
    assert longer.nodes == [] and "60 minutes" in (longer.message or "")


def test_an_instance_type_without_a_price_has_none_and_adds_nothing() -> None:
    assert prices.hourly("ml.nonexistent.48xlarge") is None


def test_a_job_without_pods_on_a_node_is_not_found() -> None:
    pending = {"metadata": {"name": "j-0", "namespace": "default", "labels": {"launchpod.io/job": "j"}}, "spec": {}}
    ports, _ = _ports(pods=[pending])
    with pytest.raises(NotFound, match="no pods of job j"):
        cases.job_metrics(JobMetricsInput(name="c1", jobName="j"), ports=ports)


def test_a_range_of_more_points_than_prometheus_answers_is_refused_with_the_step_to_use() -> None:
    ports, _ = _ports()
    with pytest.raises(InvalidInput, match="raise step to at least 5"):
        cases.endpoint_metrics(EndpointMetricsInput(name="c1", endpoint="chat", minutes=900, step=1), ports=ports)


def test_a_range_ending_at_or_before_its_start_is_refused_naming_end() -> None:
    ports, _ = _ports()
    same = "2026-12-05T10:00:00Z"
    request = EndpointMetricsInput(name="c1", endpoint="chat", start=same, end=same)  # built from a query: no 500
    with pytest.raises(InvalidInput, match="must be after start") as refused:
        cases.endpoint_metrics(request, ports=ports)
    assert refused.value.details[0]["field"] == "query.end" and refused.value.details[0]["rule"] == "metrics_window"


def test_the_metrics_of_an_endpoint_the_cluster_does_not_have_are_not_found_naming_it() -> None:
    ports, _ = _ports(endpoints=())
    with pytest.raises(NotFound, match="no endpoint chat in default"):
        cases.endpoint_metrics(EndpointMetricsInput(name="c1", endpoint="chat"), ports=ports)


def test_a_container_endpoint_is_read_by_vllms_names_and_an_operator_endpoint_by_the_operators() -> None:
    for kind, family in (("container", "vllm:"), ("managed", "model_"), ("jumpstart", "model_")):
        ports, prometheus = _ports(kind=kind)
        view = cases.endpoint_metrics(EndpointMetricsInput(name="c1", endpoint="chat"), ports=ports)
        asked = [q for _, q, *_ in prometheus.asked]
        assert asked and all(family in q for q in asked), (kind, asked)
        assert view.available is True
    ports, prometheus = _ports(kind="container")
    cases.endpoint_metrics(EndpointMetricsInput(name="c1", endpoint="chat"), ports=ports)
    asked = {q for _, q, *_ in prometheus.asked}
    # the endpoint's Deployment pods only (chat-<hash>-<id>), latency in ms from vLLM's seconds, tokens per second
    assert 'sum(rate(vllm:generation_tokens_total{namespace="default",pod=~"chat-[a-z0-9]+-[a-z0-9]+"}[120s]))' in asked
    assert any(q.startswith("histogram_quantile(0.95, ") and q.endswith(" * 1000") for q in asked)


ARN = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/lp"


def _logging_pod() -> dict:
    """A pod of job j that logs to the MLflow tracking server ARN, experiment j (as Launchpod configures it)."""
    env = [{"name": "MLFLOW_TRACKING_URI", "value": ARN}, {"name": "MLFLOW_EXPERIMENT_NAME", "value": "j"}]
    return {
        "metadata": {"name": "j-0", "namespace": "default", "labels": {"launchpod.io/job": "j"}},
        "spec": {"nodeName": f"hyperpod-{BUSY}", "containers": [{"name": "pytorch", "env": env}]},
    }


def test_a_jobs_loss_comes_from_its_mlflow_run_within_the_range() -> None:
    arn = ARN
    ports, _ = _ports(pods=[_logging_pod()])
    runs = Runs({(arn, "j"): {"run_id": "r1", "run_name": "j", "experiment_id": "1"}})
    for step, (ago, loss) in enumerate(((7200, 3.0), (300, 2.0), (60, 1.5)), start=1):  # the first before the range
        runs.log(arn, "r1", "loss", loss, step, int((NOW - ago) * 1000))
    view = cases.job_metrics(JobMetricsInput(name="c1", jobName="j", minutes=60), ports=replace(ports, runs=runs))
    (loss,) = [s for s in view.series if s.metric == "loss"]
    assert (loss.summary.max, loss.summary.last, loss.labels) == (2.0, 1.5, {"source": "mlflow", "run": "r1"})
    without = cases.job_metrics(JobMetricsInput(name="c1", jobName="j"), ports=replace(ports, runs=Runs({})))
    assert [s for s in without.series if s.metric == "loss"] == []  # logs no loss: no series, GPU metrics still


def test_loss_values_logged_in_one_millisecond_keep_their_step_order() -> None:
    arn = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/lp"
    env = [{"name": "MLFLOW_TRACKING_URI", "value": arn}, {"name": "MLFLOW_EXPERIMENT_NAME", "value": "j"}]
    pod = {
        "metadata": {"name": "j-0", "namespace": "default", "labels": {"launchpod.io/job": "j"}},
        "spec": {"nodeName": f"hyperpod-{BUSY}", "containers": [{"name": "pytorch", "env": env}]},
    }
    ports, _ = _ports(pods=[pod])
    runs = Runs({(arn, "j"): {"run_id": "r1", "run_name": "j", "experiment_id": "1"}})
    for step, loss in enumerate((1.0, 3.0, 2.0), start=1):
        runs.log(arn, "r1", "loss", loss, step, int((NOW - 60) * 1000))
    request = JobMetricsInput(name="c1", jobName="j", points=True)
    view = cases.job_metrics(request, ports=replace(ports, runs=runs))
    (loss,) = [s for s in view.series if s.metric == "loss"]
    assert [v for _, v in loss.points or []] == [1.0, 3.0, 2.0]


def test_a_jobs_throughput_is_the_first_key_of_the_documented_set_its_run_logs_with_its_unit() -> None:
    ports, _ = _ports(pods=[_logging_pod()], addon=False)  # MLflow answers without the observability add-on
    runs = Runs({(ARN, "j"): {"run_id": "r1", "run_name": "j", "experiment_id": "1"}})
    for step, (ago, value) in enumerate(((7200, 900.0), (300, 1800.0), (60, 2100.0)), start=1):  # 1st: too old
        runs.log(ARN, "r1", "perf/throughput", value, step, int((NOW - ago) * 1000))
    runs.log(ARN, "r1", "train_samples_per_second", 4.1, 3, int((NOW - 30) * 1000))  # later in the set: not read
    request = JobMetricsInput(name="c1", jobName="j", minutes=60, points=True)
    view = cases.job_metrics(request, ports=replace(ports, runs=runs))
    (throughput,) = [s for s in view.series if s.metric == "throughput"]
    assert throughput.unit == "tokens/s/GPU"
    assert throughput.labels == {"source": "mlflow", "run": "r1", "key": "perf/throughput"}
    assert throughput.points == [(NOW - 300, 1800.0), (NOW - 60, 2100.0)]
    assert (throughput.summary.min, throughput.summary.last) == (1800.0, 2100.0)
    assert view.available is False and view.message and queries.ADDON in view.message  # GPUs need the add-on

    runs.log(ARN, "r1", "tokens_per_second", 51_000.0, 3, int((NOW - 60) * 1000))  # the set's first key wins
    again = cases.job_metrics(request, ports=replace(ports, runs=runs))
    (first,) = [s for s in again.series if s.metric == "throughput"]
    assert (first.unit, first.labels["key"], first.summary.last) == ("tokens/s", "tokens_per_second", 51_000.0)


def test_a_job_that_logs_no_throughput_is_told_which_key_to_log() -> None:
    ports, _ = _ports(pods=[_logging_pod()])
    runs = Runs({(ARN, "j"): {"run_id": "r1", "run_name": "j", "experiment_id": "1"}})
    runs.log(ARN, "r1", "loss", 2.0, 1, int((NOW - 60) * 1000))
    view = cases.job_metrics(JobMetricsInput(name="c1", jobName="j"), ports=replace(ports, runs=runs))
    assert [s.metric for s in view.series if s.labels.get("source") == "mlflow"] == ["loss"]
    assert view.message and "logs no throughput" in view.message and "tokens_per_second" in view.message
    without_mlflow = cases.job_metrics(JobMetricsInput(name="c1", jobName="j"), ports=ports)  # nowhere to log to
    assert "throughput" not in (without_mlflow.message or "")
