"""A cluster's Kubernetes API in memory: the KubeObjects port (adapters.k8s.apply: read, server-side apply,
delete, a label-selected list, a raw GET) and the KubeReader / KubeDeleter / KubeLabelled ports it serves as.

Objects are kept by their API path (adapters.k8s.apply.path_of), so a namespaced object is found only in its
namespace and a cluster-scoped one whatever namespace a reference carries, as the API server finds them.
Held to the adapter on the sandbox's emulated API server by tests/ports/test_kube_objects.py."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

from launchpod.adapters.k8s import apply as adapter
from launchpod.domain.errors import LaunchpodError, PermanentError

# A new EKS cluster's namespaces (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/#initial-namespaces).
INITIAL_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def selects(selector: str, labels: dict[str, str]) -> bool:
    """Equality-based (``a=b``, ``a==b``, ``a!=b``) and existence (``a``, ``!a``) terms, all of which must hold
    (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors)."""
    for term in (t.strip() for t in selector.split(",") if t.strip()):
        if "!=" in term:
            key, value = (p.strip() for p in term.split("!=", 1))
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = (p.strip() for p in term.replace("==", "=").split("=", 1))
            if labels.get(key) != value:
                return False
        elif term.startswith("!"):
            if term[1:].strip() in labels:
                return False
        elif term not in labels:
            return False
    return True


class Kube:
    """Objects by API path; ``applied`` and ``deleted`` are the objects each call was given and ``reads`` the
    kind of each read; ``error`` (the API or the kind is missing, the cluster cannot be reached) is raised by
    every call. ``objects`` seed the cluster: their namespaces exist."""

    def __init__(self, objects: Iterable[dict[str, Any]] = (), error: LaunchpodError | None = None) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        for name in INITIAL_NAMESPACES:
            self._put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        for obj in objects:
            namespace = obj["metadata"].get("namespace")
            if namespace:
                self._put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
            self._put(obj)
        self.error = error
        self.reads: list[str] = []
        self.applied: list[dict[str, Any]] = []
        self.deleted: list[dict[str, Any]] = []

    def _put(self, obj: dict[str, Any]) -> None:
        self.objects[adapter.path_of(obj)] = copy.deepcopy(obj)

    def _reachable(self) -> None:
        if self.error is not None:
            raise self.error

    @staticmethod
    def path_of(obj: dict[str, Any]) -> str:
        return adapter.path_of(obj)

    @staticmethod
    def ready(found: dict[str, Any] | None) -> bool:
        return adapter.ready(found)

    def __call__(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        return self.read(cluster, obj)

    def read(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        self.reads.append(obj["kind"])
        self._reachable()
        found = self.objects.get(adapter.path_of(obj))
        return copy.deepcopy(found) if found is not None else None

    def apply(self, cluster: str, obj: dict[str, Any]) -> None:
        """Refused, as the API server refuses it, when the object's namespace does not exist."""
        self._reachable()
        namespace = obj["metadata"].get("namespace")
        path = adapter.path_of(obj)
        if f"/namespaces/{namespace}/" in path and f"/api/v1/namespaces/{namespace}" not in self.objects:
            raise PermanentError(f'PATCH {path} on {cluster} was rejected: 404 namespaces "{namespace}" not found')
        self.applied.append(obj)
        self._put(obj)

    def delete(self, cluster: str, obj: dict[str, Any]) -> bool:
        self._reachable()
        self.deleted.append(obj)
        return self.objects.pop(adapter.path_of(obj), None) is not None

    def list_labelled(self, cluster: str, api_version: str, kind: str, selector: str) -> list[dict[str, Any]]:
        self._reachable()
        return [
            copy.deepcopy(o)
            for o in self.objects.values()
            if o["kind"] == kind and selects(selector, o["metadata"].get("labels") or {})
        ]

    def get(self, cluster: str, path: str) -> Any:
        """An object's path answers the object; a kind's path (in every namespace, or in one) answers its list;
        anything else is absent (None), as a 404 is."""
        self._reachable()
        if path in self.objects:
            return copy.deepcopy(self.objects[path])
        kind = next((k for k, (plural, _) in adapter.PLURALS.items() if path.endswith("/" + plural)), None)
        if kind is None:
            return None
        items = [
            copy.deepcopy(o)
            for p, o in self.objects.items()
            if o["kind"] == kind and (p.startswith(path + "/") or _everywhere(p).startswith(path + "/"))
        ]
        return {"kind": f"{kind}List", "items": items}


def _everywhere(path: str) -> str:
    """A namespaced object's path without its namespace: under the path of its kind in every namespace."""
    return re.sub(r"/namespaces/[^/]+(?=/[^/]+/[^/]+$)", "", path)
