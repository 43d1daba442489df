"""A Prometheus range result as Launchpod answers it: numbers first (min, avg, max, last), the points only when
asked for, and per-group averages of per-node series."""

from __future__ import annotations

import math
from dataclasses import dataclass

from launchpod.contracts.metrics import MetricSeriesView, MetricSummary


@dataclass(frozen=True)
class RangeSeries:
    """One series of a range query's answer as Launchpod reads it; the PrometheusQueries port (adapters.aws.amp)
    builds it from the matrix Prometheus' HTTP API answers
    (https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries)."""

    labels: dict[str, str]  # __name__ among them when the query keeps it
    samples: tuple[tuple[float, float], ...]  # (unix seconds, value), NaN and infinities included


def points_of(series: RangeSeries) -> list[tuple[float, float]]:
    """The series' samples; NaN and infinities dropped (a quantile with no requests)."""
    return [point for point in series.samples if math.isfinite(point[1])]


def summary(points: list[tuple[float, float]]) -> MetricSummary:
    if not points:
        return MetricSummary(min=None, avg=None, max=None, last=None, lastAt=None)
    values = [v for _, v in points]
    return MetricSummary(
        min=_round(min(values)),
        avg=_round(math.fsum(values) / len(values)),
        max=_round(max(values)),
        last=_round(values[-1]),
        lastAt=points[-1][0],
    )


def _round(value: float) -> float:
    return round(value, 4)


def view(
    metric: str, unit: str, labels: dict[str, str], points: list[tuple[float, float]], with_points: bool
) -> MetricSeriesView:
    return MetricSeriesView(
        metric=metric,
        unit=unit,
        labels=labels,
        summary=summary(points),
        points=[(t, _round(v)) for t, v in points] if with_points else None,
    )


def by_group(results: list[RangeSeries], group_of: dict[str, str]) -> dict[str, list[tuple[float, float]]]:
    """Per-node series (label Hostname) averaged per instance group at each instant (nodes of a group carry
    the same GPUs, so the mean of node means is the group's GPU mean)."""
    sums: dict[str, dict[float, list[float]]] = {}
    for result in results:
        group = group_of.get(str(result.labels.get("Hostname")))
        if group is None:
            continue
        for t, v in points_of(result):
            sums.setdefault(group, {}).setdefault(t, []).append(v)
    return {g: [(t, math.fsum(vs) / len(vs)) for t, vs in sorted(by_t.items())] for g, by_t in sums.items()}
