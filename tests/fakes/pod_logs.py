"""A live log pump's reads in memory: the PodLogs port of runtime.wiring (adapters.k8s.log_follow)."""

from __future__ import annotations

import time
from typing import Any

from sandbox.kube.pod_log_times import format_ns, parse_rfc3339


class PodLogs:
    """Pods by (namespace, name) and each container's log as stamped chunks: ``write`` stamps a chunk with the
    wall clock as the container runtime does, and ``read_since`` answers every line of the chunks stamped at or
    after ``since`` ("" = all), each prefixed "<RFC3339Nano> " as the kubelet's ``timestamps`` does; None for a
    pod that does not exist (404)."""

    READ_LIMIT_BYTES = 4 * 1024 * 1024

    def __init__(self) -> None:
        self.pods: dict[tuple[str, str], dict[str, Any]] = {}
        self.logs: dict[tuple[str, str, str | None], list[tuple[int, str]]] = {}

    def create(self, pod: dict[str, Any]) -> None:
        self.pods[(pod["metadata"].get("namespace", "default"), pod["metadata"]["name"])] = pod

    def write(self, namespace: str, name: str, container: str, text: str) -> None:
        self.logs.setdefault((namespace, name, container), []).append((time.time_ns(), text))

    def pod(self, cluster: str, namespace: str, name: str) -> dict[str, Any] | None:
        found = self.pods.get((namespace, name))
        return dict(found) if found else None

    def default_container(self, found: dict[str, Any]) -> str | None:
        annotations = (found.get("metadata") or {}).get("annotations") or {}
        containers = [c.get("name") for c in (found.get("spec") or {}).get("containers") or []]
        chosen = annotations.get("kubectl.kubernetes.io/default-container")
        return chosen if chosen in containers else (containers[0] if containers else None)

    def read_since(self, cluster: str, namespace: str, name: str, container: str | None, since: str) -> str | None:
        if (namespace, name) not in self.pods:
            return None
        at = parse_rfc3339(since) if since else None
        chunks = self.logs.get((namespace, name, container), [])
        stamped = [
            f"{format_ns(ns)} {line}" for ns, text in chunks if at is None or ns >= at for line in text.splitlines(True)
        ]
        return "".join(stamped).encode()[: self.READ_LIMIT_BYTES].decode(errors="ignore")
