"""The sandbox's AMP query API on its own: the PromQL subset Launchpod issues (sandbox.aws.prometheus.promql)
evaluated over change-point series as Prometheus evaluates it over scrapes: aggregation by a label, a counter's
rate over a window, a histogram's quantile, a filter by a scalar; and the errors Prometheus answers."""

from __future__ import annotations

import json

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
