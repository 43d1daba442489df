"""A Prometheus-compatible query API in memory: the PrometheusQueries port (adapters.aws.amp).

Each workspace endpoint holds canned answers by PromQL text: a list of series, each ``{"metric": labels,
"samples": [(t, value), ...]}``; a range query answers each series' samples on the step grid (the last sample at
or before each instant, as Prometheus' instant selection does) and leaves out series with none. An endpoint it
does not hold is refused as the adapter refuses a missing workspace (Conflict). The matrix it answers is read as
the adapter reads Prometheus' (adapters.aws.amp.range_series). Held to the adapter on the sandbox's AMP query
API by tests/ports/test_prometheus_queries.py."""

from __future__ import annotations

import bisect
from typing import Any

from launchpod.adapters.aws.amp import range_series
from launchpod.domain.errors import Conflict
from launchpod.domain.metrics.series import RangeSeries


class Prometheus:
    def __init__(self, answers: dict[str, dict[str, list[dict[str, Any]]]] | None = None) -> None:
        self.answers = answers if answers is not None else {}
        self.asked: list[tuple[str, str, float, float, float]] = []

    def query_range(self, endpoint: str, query: str, start: float, end: float, step: float) -> list[RangeSeries]:
        self.asked.append((endpoint, query, start, end, step))
        if endpoint not in self.answers:
            raise Conflict(f"The Amazon Managed Prometheus workspace {endpoint} does not exist.")
        out = []
        for series in self.answers[endpoint].get(query, []):
            samples = sorted(series["samples"])
            times = [t for t, _ in samples]
            values = []
            count = int((end - start) // step) + 1
            for i in range(count):
                at = start + i * step
                k = bisect.bisect_right(times, at) - 1
                if k >= 0:
                    values.append([at, f"{samples[k][1]:g}"])
            if values:
                out.append(range_series({"metric": dict(series["metric"]), "values": values}))
        return out
