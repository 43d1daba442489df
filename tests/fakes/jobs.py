"""A cluster's training jobs' pods, events, nodes and logs in memory, as adapters.k8s.jobs reads them."""

from __future__ import annotations

from typing import Any


class JobApi:
    """Pods (with their containers' logs), events and nodes of a cluster, as the jobs adapter reads them."""

    def __init__(self, pods: list[dict[str, Any]], logs: dict[tuple[str, str], str]) -> None:
        self._pods, self.logs, self.read_logs = pods, logs, list[tuple[str, str]]()

    def list_kind(self, cluster: str, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        return []

    def pods(self, cluster: str, namespace: str, selector: str) -> list[dict[str, Any]]:
        key, value = selector.split("=", 1)
        return [p for p in self._pods if (p["metadata"].get("labels") or {}).get(key) == value]

    def events(self, cluster: str, namespace: str) -> list[dict[str, Any]]:
        return []

    def nodes(self, cluster: str) -> list[dict[str, Any]]:
        return []

    def log(self, cluster: str, namespace: str, pod: str, container: str, tail: int, since: int | None) -> str | None:
        self.read_logs.append((pod, container))
        return self.logs.get((pod, container))
