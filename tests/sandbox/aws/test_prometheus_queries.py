"""The sandbox's AMP query API on its own: the PromQL subset Launchpod issues (sandbox.aws.prometheus.promql)
evaluated over change-point series as Prometheus evaluates it over scrapes: aggregation by a label, a counter's
rate over a window, a histogram's quantile, a filter by a scalar; and the errors Prometheus answers."""

from __future__ import annotations

import json
import math
import random

import pytest

from sandbox.aws.prometheus import api
from sandbox.aws.prometheus.tsdb import Tsdb

T0 = 1_800_000_000.0


@pytest.fixture
def db(monkeypatch: pytest.MonkeyPatch) -> Tsdb:
    fresh = Tsdb()
    monkeypatch.setattr(api, "tsdb", lambda: fresh)
    return fresh


def _range(query: str, start: float, end: float, step: float) -> list[dict]:
    answer = json.loads(
        api.query_range("ws", {"query": query, "start": str(start), "end": str(end), "step": str(step)})
    )
    assert answer["status"] == "success" and answer["data"]["resultType"] == "matrix"
    return answer["data"]["result"]


def _values(result: dict) -> list[float]:
    return [float(v) for _, v in result["values"]]


def test_an_aggregation_by_a_label_reads_each_series_last_change_and_ends_at_a_stale_marker(db: Tsdb) -> None:
    for gpu, (busy_from, value) in enumerate([(T0 + 10, 90.0), (T0 + 20, 70.0)]):
        labels = {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": "n1", "gpu": str(gpu)}
        db.gauge("ws", labels, T0, 0.0)
        db.gauge("ws", labels, busy_from, value)
        db.gauge("ws", labels, T0 + 35, value)  # the same value again: no new change point
    db.gauge("ws", {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": "n2", "gpu": "0"}, T0, 5.0)
    db.stale("ws", [], {"DCGM_FI_DEV_GPU_UTIL"}, T0 + 30)  # every target gone at T0+30
    (n1,) = _range('max by (Hostname) (DCGM_FI_DEV_GPU_UTIL{Hostname=~"n1|n9"})', T0, T0 + 40, 10)
    assert n1["metric"] == {"Hostname": "n1"}
    assert _values(n1) == [0.0, 90.0, 90.0]  # T0, +10, +20; nothing from +30 on
    averaged = _range("avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)", T0, T0 + 20, 10)
    assert {r["metric"]["Hostname"]: _values(r) for r in averaged} == {"n1": [0.0, 45.0, 80.0], "n2": [5.0] * 3}
    (idle,) = _range("count(DCGM_FI_DEV_GPU_UTIL < 1)", T0, T0 + 20, 10)
    assert _values(idle) == [2.0, 1.0]  # at +20 no GPU is idle: that instant has no sample


def test_a_counters_rate_is_its_increase_over_the_window(db: Tsdb) -> None:
    labels = {"__name__": "model_invocations_total", "resource_name": "chat", "namespace": "default"}
    for k in range(6):
        db.count("ws", labels, T0 + 10 + k, 1.0)
    (rate,) = _range('sum(rate(model_invocations_total{resource_name="chat"}[60s]))', T0 + 30, T0 + 90, 30)
    assert _values(rate) == pytest.approx([6 / 60, 6 / 60, 0.0])  # +30, +60 (window from +0), +90 (from +30)


def test_a_histogram_quantile_interpolates_within_its_bucket(db: Tsdb) -> None:
    for le, count in (("10", 2.0), ("100", 10.0), ("+Inf", 10.0)):
        db.count("ws", {"__name__": "model_latency_milliseconds_bucket", "le": le}, T0 + 1, count)
    query = "histogram_quantile(0.5, sum by (le) (rate(model_latency_milliseconds_bucket[60s])))"
    (p50,) = _range(query, T0 + 60, T0 + 60, 1)
    assert _values(p50) == pytest.approx([10 + 90 * (5 - 2) / (10 - 2)])


def test_a_quantile_in_seconds_times_1000_is_in_milliseconds_and_vllm_names_parse(db: Tsdb) -> None:
    for le, count in (("0.1", 4.0), ("0.3", 4.0), ("+Inf", 4.0)):
        db.count("ws", {"__name__": "vllm:e2e_request_latency_seconds_bucket", "le": le, "pod": "chat-a1-0"}, T0, count)
    histogram = 'vllm:e2e_request_latency_seconds_bucket{pod=~"chat-[a-z0-9]+-[a-z0-9]+"}'
    query = f"histogram_quantile(0.5, sum by (le) (rate({histogram}[60s]))) * 1000"
    (p50,) = _range(query, T0 + 30, T0 + 30, 1)
    assert _values(p50) == pytest.approx([50.0])  # half of the first bucket's 0.1 s


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"query": "up offset 5m", "start": "1", "end": "2", "step": "1"}, "parse error"),
        ({"query": "up", "start": "2", "end": "1", "step": "1"}, "end timestamp must not be before start"),
        ({"query": "up", "start": "0", "end": "86400", "step": "1"}, "11,000 points"),
        ({"query": "up", "start": "0", "end": "1"}, 'invalid parameter "step"'),
    ],
)
def test_what_prometheus_refuses_is_a_bad_data_error(db: Tsdb, params: dict, error: str) -> None:
    with pytest.raises(api.ApiError) as refused:
        api.query_range("ws", params)
    assert refused.value.status == 400 and refused.value.body()["errorType"] == "bad_data"
    assert error in refused.value.body()["error"]


def _busy_fleet(db: Tsdb, nodes: int) -> None:
    """GPUs that turn busy and idle at each node's own scrapes, a node that goes away (stale), and counters and
    histograms that grow: series whose changes fall at different instants, so a range query combines them."""
    rng = random.Random(5)
    for n in range(nodes):
        t, busy = T0 + rng.randrange(0, 300), False
        while t < T0 + 3600 and not (n == 0 and t > T0 + 2000):
            for gpu in range(4):
                labels = {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": f"n{n}", "gpu": str(gpu)}
                db.gauge("ws", labels, t, float(90 + gpu) if busy and gpu < n % 4 + 1 else 0.0)
            db.count("ws", {"__name__": "node_amazonefa_tx_bytes", "instance": f"n{n}"}, t, 1e9 if busy else 0.0)
            for le, cut in (("100", 100), ("500", 500), ("+Inf", math.inf)):
                latency = rng.uniform(20, 900)
                db.count("ws", {"__name__": "model_latency_milliseconds_bucket", "le": le}, t, float(latency <= cut))
            t, busy = t + rng.randrange(30, 600), not busy
    others = [key for key, series in db.workspaces["ws"].items() if series.labels.get("Hostname") != "n0"]
    db.stale("ws", others, {"DCGM_FI_DEV_GPU_UTIL"}, T0 + 2001)  # n0 goes away


@pytest.mark.parametrize(
    "query",
    [
        'max by (Hostname) (DCGM_FI_DEV_GPU_UTIL{Hostname=~"n.*"})',
        "avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)",
        "count(DCGM_FI_DEV_GPU_UTIL < 1)",
        "sum(DCGM_FI_DEV_GPU_UTIL > 50) * 2",
        "sum by (instance) (rate(node_amazonefa_tx_bytes[120s]))",
        "histogram_quantile(0.95, sum by (le) (rate(model_latency_milliseconds_bucket[300s])))",
    ],
)
def test_a_range_query_answers_what_an_instant_query_answers_at_each_of_its_steps(db: Tsdb, query: str) -> None:
    # Prometheus evaluates a range query as an instant query at every step
    # (https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries); the sandbox works on each
    # series' changes instead of its instants, and must answer the same numbers
    _busy_fleet(db, 12)
    start, step, count = T0 - 60, 45, 90
    ranged = {
        json.dumps(r["metric"], sort_keys=True): dict(r["values"])
        for r in _range(query, start, start + (count - 1) * step, step)
    }
    instants: dict[str, dict[int, str]] = {}
    for i in range(count):
        at = int(start + i * step)
        for r in api.query("ws", {"query": query, "time": str(at)})["data"]["result"]:
            instants.setdefault(json.dumps(r["metric"], sort_keys=True), {})[at] = r["value"][1]
    assert ranged == instants
    assert sum(len(v) for v in ranged.values()) > count // 2  # numbers at most steps, not two empty answers
