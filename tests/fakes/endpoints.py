"""The inference endpoints on a cluster in memory: the KubeEndpoints port (adapters.k8s.endpoints)."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import PermanentError


class Endpoints:
    """The endpoints on a cluster (adapters.k8s.endpoints), sorted by name as the adapter lists them; ``answer``
    is what every endpoint's server answers. Chats sent, replicas set and pods bound are recorded."""

    def __init__(self, found: list[Any], answer: dict[str, Any] | None = None) -> None:
        self.found = found
        self.answer = answer or {}
        self.chats: list[dict[str, Any]] = []
        self.scaled: list[tuple[str, int]] = []
        self.bound: list[tuple[str, str, str]] = []

    def endpoints(self, cluster: str, with_pods: bool = True, name: str | None = None) -> list[Any]:
        return sorted((e for e in self.found if name is None or e.name == name), key=lambda e: e.name)

    def endpoint(self, cluster: str, name: str) -> Any:
        return next(iter(self.endpoints(cluster, name=name)), None)

    def scale(self, cluster: str, real: Any, replicas: int) -> None:
        """A merge patch of the primary object's spec.replicas, as the adapter sends."""
        self.scaled.append((real.name, replicas))
        for found in self.found:
            if (found.kind, found.name, found.namespace) == (real.kind, real.name, real.namespace):
                found.primary = {**found.primary, "spec": {**(found.primary.get("spec") or {}), "replicas": replicas}}

    def _served(self, real: Any) -> None:
        if real.service is None or real.port is None:
            raise PermanentError(f"Endpoint {real.name} has no Service to call yet.")

    def chat(self, cluster: str, real: Any, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        self._served(real)
        self.chats.append(payload)
        return self.answer, False

    def models(self, cluster: str, real: Any) -> dict[str, Any]:
        self._served(real)
        return {"object": "list", "data": [{"id": self.answer.get("model", "model"), "object": "model"}]}

    def bind_pod(self, cluster: str, namespace: str, pod: str, endpoint: str) -> None:
        self.bound.append((namespace, pod, endpoint))
