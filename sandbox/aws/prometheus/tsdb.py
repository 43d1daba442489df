"""The samples an Amazon Managed Service for Prometheus workspace holds, for the sandbox (moto's ``amp`` has
the workspaces but no samples and no query API).

The HyperPod observability add-on's collectors remote-write what they scrape into the workspace named in the
add-on's ``ampWorkspace`` configuration (``aps:RemoteWrite``; "Amazon SageMaker HyperPod observability",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-observability-addon.html). The sandbox's
exporters (sandbox.aws.prometheus.exporters) write here instead. A series keeps only its change points: an
exporter answers the same value at every scrape while nothing changes, so "the value since the last change"
is what a query at any time between two scrapes would read. A series whose target goes away gets a stale
marker (None), as Prometheus writes one when a target disappears
(https://prometheus.io/docs/prometheus/latest/querying/basics/#staleness). Counters keep their cumulative
value at each increment.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from sandbox.aws.state import STATE

MAX_POINTS = 50_000  # per series: the oldest change points go first


@dataclass
class Series:
    labels: dict[str, str]
    times: list[float] = field(default_factory=list)
    values: list[float | None] = field(default_factory=list)

    def last(self) -> float | None:
        return self.values[-1] if self.values else None

    def append(self, t: float, value: float | None) -> None:
        if self.times and t < self.times[-1]:
            t = self.times[-1]
        self.times.append(t)
        self.values.append(value)
        if len(self.times) > MAX_POINTS:
            del self.times[: len(self.times) - MAX_POINTS]
            del self.values[: len(self.values) - MAX_POINTS]


def key_of(labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(labels.items()))


@dataclass
class Tsdb:
    """Series by workspace id, then by their sorted labels (``__name__`` included)."""

    workspaces: dict[str, dict[tuple[tuple[str, str], ...], Series]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def series(self, workspace: str, labels: dict[str, str]) -> Series:
        store = self.workspaces.setdefault(workspace, {})
        key = key_of(labels)
        found = store.get(key)
        if found is None:
            found = store[key] = Series(dict(labels))
        return found

    def gauge(self, workspace: str, labels: dict[str, str], t: float, value: float | None) -> None:
        """One scrape's value: kept only when it differs from the last one."""
        with self.lock:
            series = self.series(workspace, labels)
            if not series.values or series.last() != value:
                series.append(t, value)

    def count(self, workspace: str, labels: dict[str, str], t: float, delta: float) -> None:
        """A counter grows by ``delta`` at ``t`` (a counter that restarts after a stale marker starts at 0)."""
        with self.lock:
            series = self.series(workspace, labels)
            if delta == 0 and series.last() is not None:
                return
            series.append(t, (series.last() or 0.0) + delta)

    def stale(self, workspace: str, keep: Iterable[tuple[tuple[str, str], ...]], names: set[str], t: float) -> None:
        """Stale markers on every live series named in ``names`` that is not in ``keep`` (its target is gone)."""
        kept = set(keep)
        with self.lock:
            for key, series in (self.workspaces.get(workspace) or {}).items():
                if key not in kept and series.labels.get("__name__") in names and series.last() is not None:
                    series.append(t, None)

    def select(self, workspace: str, name: str) -> list[Series]:
        with self.lock:
            return [s for s in (self.workspaces.get(workspace) or {}).values() if s.labels.get("__name__") == name]

    def drop(self, workspace: str) -> None:
        with self.lock:
            self.workspaces.pop(workspace, None)


def tsdb() -> Tsdb:
    return STATE.of(Tsdb)
