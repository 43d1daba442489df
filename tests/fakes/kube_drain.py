"""Draining in memory: the KubeDrain port (adapters.k8s.drain) over a KubeLists' Nodes and Pods: cordon sets
``spec.unschedulable``, uncordon drops it, evict removes the pod unless its name is held (a disruption budget
with none left: False).

Held to the adapter on the sandbox's emulated API server by tests/ports/test_kube_drain.py."""

from __future__ import annotations

from tests.fakes.kube_listing import KubeLists


class KubeDrain:
    def __init__(self, lists: KubeLists, held: set[str] | None = None) -> None:
        self.lists, self.held = lists, held or set()
        self.evicted: list[str] = []

    def _node(self, node: str) -> dict:
        return next(n for n in self.lists.objects.get("Node", []) if n["metadata"]["name"] == node)

    def cordon(self, cluster: str, node: str) -> None:
        self._node(node).setdefault("spec", {})["unschedulable"] = True

    def uncordon(self, cluster: str, node: str) -> None:
        self._node(node).setdefault("spec", {}).pop("unschedulable", None)

    def evict(self, cluster: str, namespace: str, pod: str) -> bool:
        if f"{namespace}/{pod}" in self.held:
            return False
        pods = self.lists.objects.get("Pod", [])
        self.lists.objects["Pod"] = [
            p for p in pods if (p["metadata"].get("namespace"), p["metadata"]["name"]) != (namespace, pod)
        ]
        self.evicted.append(f"{namespace}/{pod}")
        return True
