"""A cluster's training jobs in memory, as adapters.k8s.jobs reads them: the jobs' custom resources, their pods,
the events of a namespace, the nodes, and a container's log.

Held to the adapter on the sandbox's emulated API server by tests/ports/test_jobs_api.py."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import InvalidInput

from tests.fakes.kube import selects


def _in(obj: dict[str, Any], namespace: str | None) -> bool:
    return namespace is None or obj["metadata"].get("namespace") == namespace


class JobApi:
    """Pods (with their containers' logs by (pod, container)), events, nodes and jobs (custom resources with their
    apiVersion and kind) of a cluster; ``read_logs`` is (pod, container) of each log read."""

    def __init__(
        self,
        pods: list[dict[str, Any]] | None = None,
        logs: dict[tuple[str, str], str] | None = None,
        events: list[dict[str, Any]] | None = None,
        nodes: list[dict[str, Any]] | None = None,
        jobs: list[dict[str, Any]] | None = None,
    ) -> None:
        self._pods, self.logs = pods or [], logs or {}
        self._events, self._nodes, self._jobs = events or [], nodes or [], jobs or []
        self.read_logs: list[tuple[str, str]] = []

    def list_kind(self, cluster: str, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        """The jobs of a kind (in one namespace or all); a kind the cluster does not serve has none."""
        return [j for j in self._jobs if (j["apiVersion"], j["kind"]) == (api_version, kind) and _in(j, namespace)]

    def pods(self, cluster: str, namespace: str, selector: str) -> list[dict[str, Any]]:
        return [p for p in self._pods if _in(p, namespace) and selects(selector, p["metadata"].get("labels") or {})]

    def events(self, cluster: str, namespace: str) -> list[dict[str, Any]]:
        return [e for e in self._events if _in(e, namespace)]

    def nodes(self, cluster: str) -> list[dict[str, Any]]:
        return list(self._nodes)

    def log(self, cluster: str, namespace: str, pod: str, container: str, tail: int, since: int | None) -> str | None:
        """The last ``tail`` lines ("" before the container wrote any); None when the pod is gone; a container the
        pod does not have is refused, as the API server refuses it."""
        self.read_logs.append((pod, container))
        found = next((p for p in self._pods if _in(p, namespace) and p["metadata"]["name"] == pod), None)
        if found is None:
            return None
        if container not in [c["name"] for c in (found.get("spec") or {}).get("containers", [])]:
            raise InvalidInput(
                f"Pod {pod} has no container {container}.", field="query.container", rule="a container of the pod"
            )
        return "".join(self.logs.get((pod, container), "").splitlines(keepends=True)[-tail:])
