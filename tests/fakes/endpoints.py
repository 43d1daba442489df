"""The inference endpoints on a cluster in memory (adapters.k8s.endpoints)."""

from __future__ import annotations

from typing import Any


class Endpoints:
    """The endpoints on a cluster (adapters.k8s.endpoints): chats sent and pods bound are recorded."""

    def __init__(self, found: list[Any], answer: dict[str, Any] | None = None) -> None:
        self.found = found
        self.answer = answer or {}
        self.chats: list[dict[str, Any]] = []
        self.bound: list[tuple[str, str, str]] = []

    def endpoints(self, cluster: str, with_pods: bool = True, name: str | None = None) -> list[Any]:
        return [e for e in self.found if name is None or e.name == name]

    def endpoint(self, cluster: str, name: str) -> Any:
        return next(iter(self.endpoints(cluster, name=name)), None)

    def chat(self, cluster: str, real: Any, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        self.chats.append(payload)
        return self.answer, False

    def models(self, cluster: str, real: Any) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.answer.get("model", "model"), "object": "model"}]}

    def bind_pod(self, cluster: str, namespace: str, pod: str, endpoint: str) -> None:
        self.bound.append((namespace, pod, endpoint))
